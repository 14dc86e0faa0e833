// The fault hook of the fault-injection model (built with SIM_FAULTS only; sim/fault_model.py).
//
// That model is Verilated with a configuration file that makes the peripheral's registers and memories
// public (public_flat_rw; its watched ports public_flat_rd), written by sim/fault_model.py from its
// Verilog: the RTL is the one every other build uses. This hook finds them through Verilator's scope
// and variable tables and flips one bit of one of them, once, at a chosen cycle. The host speaks to
// it over two pipes whose descriptors it passes in SIM_FAULT_FDS ("<read>,<write>"), one line per
// request:
//
//   sites                      one `site <index> <scope> <name> <type> <bits> <elements>` line per
//                              variable of the peripheral, then `end`
//   arm <site> <element> <bit> <delay> <limit>
//                              after the peripheral's next activity (a command, a data access or
//                              busy), flip bit <bit> of element <element> of <site> <delay> cycles
//                              later (a negative delay: only watch); end the simulation if <limit>
//                              cycles (0: none) pass before `report`. Answers `armed`
//   report                     `report fired=<0|1> offset=<cycle of the flip after the first
//                              activity> span=<cycles from the first to the last activity>
//                              resets=<resets of a busy peripheral after the first activity: the
//                              driver giving up on it; the console's reset of an idle one after
//                              every command is not counted> commands=<n>
//                              before=<hex> after=<hex>` (the flipped 32-bit word),
//                              one `cmd <offset> <command word> <busy cycles>` line per command,
//                              one `ucmd <unit> <offset>` line per command of another unit, then
//                              `end`; disarms
//   peek <site> <element>      `value <hex>`: the element's 32-bit words, most significant first
//   dump <scope> <name>        `memory <elements> <bytes per element> <hex>`: every element of a public
//                              variable of the SoC (its RAMs, made readable in this model), element 0
//                              first, each element's bytes in the model's order (least significant first)
//
// SIM_FAULT_SCOPE names the peripheral's scope (its ports, there, show its activity), then, after
// commas, the scopes of other units whose state is a fault site too (the entropy source, the SHA-256
// engine); and SIM_FAULT_BUSY_MASK the busy bit of the peripheral's status word. Another unit with a
// `command_stb` port (made readable) has its commands watched too: each is activity, and is reported
// (`ucmd`), so that an operation's span starts at its hash when it hashes before its RSA. The flip happens after a falling edge and
// the model is evaluated again, so logic that reads the flipped bit sees it at the next edge, as
// it would see a register that took a wrong value at that edge.
#ifndef FAULT_HOOK_H
#define FAULT_HOOK_H

#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Vsim.h"
#include "verilated.h"
#include "verilated_syms.h"

class FaultHook {
public:
    void open(Vsim *top) {
        top_ = top;
        const char *fds = getenv("SIM_FAULT_FDS");
        const char *scope = getenv("SIM_FAULT_SCOPE");
        const char *mask = getenv("SIM_FAULT_BUSY_MASK");
        if (!fds || sscanf(fds, "%d,%d", &in_, &out_) != 2 || !scope) {
            in_ = out_ = -1;
            return;
        }
        busy_mask_ = mask ? strtoul(mask, nullptr, 0) : 1;
        fcntl(in_, F_SETFL, fcntl(in_, F_GETFL) | O_NONBLOCK);
        std::vector<std::string> units;            // "<peripheral>[,<other unit>...]": the first is watched
        for (std::string rest = scope; !rest.empty();) {
            size_t comma = rest.find(',');
            units.push_back(rest.substr(0, comma));
            rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
        for (size_t i = 0; i < units.size(); i++)
            add_sites(units[i], i == 0, i);
    }

    int control_fd() const { return in_; }

    // After each cycle's falling edge. True when the cycle limit has passed: the run ends.
    bool step(uint64_t cycle, Vsim *top) {
        if (!armed_)
            return false;
        uint32_t status = read32(status_);
        bool busy = status & busy_mask_;
        bool strobe = read32(cmd_stb_) || read32(wdata_stb_) || read32(rdata_stb_);
        int unit = -1;
        for (const auto &u : unit_cmd_stbs_)
            if (read32(u.second))
                unit = (int)u.first;
        if (strobe || busy || unit >= 0) {
            if (first_ < 0)
                first_ = (int64_t)cycle;
            last_ = (int64_t)cycle;
        }
        if (read32(cmd_stb_) && commands_.size() < MAX_COMMANDS)
            commands_.push_back({(int64_t)cycle - first_, read32(cmd_), 0});
        else if (busy && !commands_.empty())
            commands_.back().busy++;
        if (unit >= 0 && unit_commands_.size() < MAX_COMMANDS)
            unit_commands_.push_back({(int64_t)cycle - first_, (uint32_t)unit, 0});
        bool rst = read32(rst_);
        if (rst && !rst_before_ && first_ >= 0 && busy_before_)
            resets_++;
        rst_before_ = rst;
        busy_before_ = busy;
        if (delay_ >= 0 && !fired_ && first_ >= 0 && (int64_t)cycle - first_ == delay_) {
            flip();
            fired_ = true;
            fire_offset_ = delay_;
            top->eval();
        }
        if (limit_ && cycle - armed_at_ >= limit_) {
            say("hang cycle=%llu\n", (unsigned long long)cycle);
            return true;
        }
        return false;
    }

    // Serves whatever requests the host has sent, without waiting.
    void poll(uint64_t cycle) {
        if (in_ < 0)
            return;
        char buf[4096];
        ssize_t n;
        while ((n = read(in_, buf, sizeof(buf))) > 0)
            pending_.append(buf, (size_t)n);
        size_t nl;
        while ((nl = pending_.find('\n')) != std::string::npos) {
            std::string line = pending_.substr(0, nl);
            pending_.erase(0, nl + 1);
            serve(line, cycle);
        }
    }

private:
    static constexpr size_t MAX_COMMANDS = 4096;
    struct Site {
        std::string scope, name;
        const VerilatedVar *var;
    };
    struct Command {
        int64_t offset;
        uint32_t word;
        uint64_t busy;
    };

    Vsim *top_ = nullptr;
    int in_ = -1, out_ = -1;
    uint32_t busy_mask_ = 1;
    std::vector<Site> sites_;
    const VerilatedVar *status_ = nullptr, *cmd_stb_ = nullptr, *wdata_stb_ = nullptr, *rdata_stb_ = nullptr,
                       *rst_ = nullptr, *cmd_ = nullptr;
    std::string pending_;
    bool armed_ = false, fired_ = false, rst_before_ = false, busy_before_ = false;
    size_t site_ = 0;
    uint64_t element_ = 0, bit_ = 0, armed_at_ = 0, limit_ = 0, before_ = 0, after_ = 0;
    int64_t delay_ = -1, first_ = -1, last_ = -1, fire_offset_ = -1;
    unsigned resets_ = 0;
    std::vector<Command> commands_, unit_commands_;      // a unit command's `word` is its unit's index
    std::vector<std::pair<size_t, const VerilatedVar *>> unit_cmd_stbs_;

    // The variables of `unit`'s scope and of the scopes below it; the unit's own ports watched if asked
    // (the peripheral's), else its `command_stb` if it has one readable.
    void add_sites(const std::string &unit, bool watched, size_t index) {
        std::string prefix = unit + ".";
        for (const auto &entry : *Verilated::threadContextp()->scopeNameMap()) {
            const VerilatedScope *s = entry.second;
            std::string name = s->name();
            if ((name != unit && name.compare(0, prefix.size(), prefix) != 0) || !s->varsp())
                continue;
            for (auto &var : *s->varsp()) {
                if (var.second.isParam())
                    continue;
                sites_.push_back({name, var.first, &var.second});
                if (watched && name == unit)
                    watch(var.first, &var.second);
                else if (name == unit && !strcmp(var.first, "command_stb"))
                    unit_cmd_stbs_.push_back({index, &var.second});
            }
        }
    }

    void watch(const std::string &name, const VerilatedVar *var) {
        if (name == "status") status_ = var;
        if (name == "cmd_stb") cmd_stb_ = var;
        if (name == "wdata_stb") wdata_stb_ = var;
        if (name == "rdata_stb") rdata_stb_ = var;
        if (name == "rst") rst_ = var;
        if (name == "cmd") cmd_ = var;
    }

    static uint32_t read32(const VerilatedVar *var) {
        if (!var)
            return 0;
        switch (var->vltype()) {
        case VLVT_UINT8: return *(const uint8_t *)var->datap();
        case VLVT_UINT16: return *(const uint16_t *)var->datap();
        default: return *(const uint32_t *)var->datap();
        }
    }

    static uint64_t elements(const VerilatedVar *var) {
        uint64_t count = 1;
        for (const auto &range : var->unpackedRanges())
            count *= (uint64_t)range.elements();
        return count;
    }

    static char *element_data(const VerilatedVar *var, uint64_t element) {
        return (char *)var->datap() + element * var->entSize();
    }

    void flip() {
        const VerilatedVar *var = sites_[site_].var;
        char *data = element_data(var, element_);
        switch (var->vltype()) {
        case VLVT_UINT8: {
            uint8_t *p = (uint8_t *)data;
            before_ = *p;
            *p ^= (uint8_t)(1u << bit_);
            after_ = *p;
            break;
        }
        case VLVT_UINT16: {
            uint16_t *p = (uint16_t *)data;
            before_ = *p;
            *p ^= (uint16_t)(1u << bit_);
            after_ = *p;
            break;
        }
        case VLVT_UINT32: {
            uint32_t *p = (uint32_t *)data;
            before_ = *p;
            *p ^= 1u << bit_;
            after_ = *p;
            break;
        }
        case VLVT_UINT64: {
            uint64_t *p = (uint64_t *)data;
            before_ = *p;
            *p ^= 1ull << bit_;
            after_ = *p;
            break;
        }
        case VLVT_WDATA: {
            uint32_t *p = (uint32_t *)data + bit_ / 32;
            before_ = *p;
            *p ^= 1u << (bit_ % 32);
            after_ = *p;
            break;
        }
        default:
            break;
        }
    }

    void say(const char *format, ...) __attribute__((format(printf, 2, 3))) {
        if (out_ < 0)
            return;
        char line[512];
        va_list args;
        va_start(args, format);
        int n = vsnprintf(line, sizeof(line), format, args);
        va_end(args);
        if (n > 0)
            send(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    }

    void send(const char *data, size_t len) {
        while (len) {
            ssize_t n = write(out_, data, len);
            if (n <= 0)
                return;
            data += n;
            len -= (size_t)n;
        }
    }

    // `dump <scope> <name>`: the variable's bytes in hex on one line.
    void dump(const std::string &line) {
        char scope[256] = "", name[128] = "";
        const VerilatedScope *s = nullptr;
        const VerilatedVar *var = nullptr;
        if (sscanf(line.c_str(), "dump %255s %127s", scope, name) == 2)
            s = Verilated::threadContextp()->scopeFind(scope);
        if (s)
            var = s->varFind(name);
        if (!var) {
            say("error bad dump request: %s\n", line.c_str());
            return;
        }
        static const char digits[] = "0123456789abcdef";
        uint64_t count = elements(var);
        size_t bytes = (var->entBits() + 7) / 8;
        std::string text = "memory " + std::to_string(count) + " " + std::to_string(bytes) + " ";
        text.reserve(text.size() + count * bytes * 2 + 1);
        for (uint64_t e = 0; e < count; e++) {
            const unsigned char *data = (const unsigned char *)element_data(var, e);
            for (size_t b = 0; b < bytes; b++) {
                text += digits[data[b] >> 4];
                text += digits[data[b] & 15];
            }
        }
        text += "\n";
        send(text.data(), text.size());
    }

    void serve(const std::string &line, uint64_t cycle) {
        char word[16] = "";
        sscanf(line.c_str(), "%15s", word);
        if (!strcmp(word, "sites")) {
            for (size_t i = 0; i < sites_.size(); i++) {
                const VerilatedVar *var = sites_[i].var;
                say("site %zu %s %s %d %u %llu\n", i, sites_[i].scope.c_str(), sites_[i].name.c_str(),
                    (int)var->vltype(), (unsigned)var->entBits(), (unsigned long long)elements(var));
            }
            say("end\n");
        } else if (!strcmp(word, "arm")) {
            unsigned long long site, element, bit, limit;
            long long delay;
            if (sscanf(line.c_str(), "arm %llu %llu %llu %lld %llu", &site, &element, &bit, &delay, &limit) != 5
                || site >= sites_.size() || element >= elements(sites_[site].var)
                || bit >= sites_[site].var->entBits()) {
                say("error bad arm request: %s\n", line.c_str());
                return;
            }
            armed_ = true;
            fired_ = false;
            site_ = site;
            element_ = element;
            bit_ = bit;
            delay_ = delay;
            limit_ = limit;
            armed_at_ = cycle;
            first_ = last_ = fire_offset_ = -1;
            before_ = after_ = 0;
            resets_ = 0;
            rst_before_ = read32(rst_);
            busy_before_ = read32(status_) & busy_mask_;
            commands_.clear();
            unit_commands_.clear();
            say("armed\n");
        } else if (!strcmp(word, "report")) {
            say("report fired=%d offset=%lld span=%lld resets=%u commands=%zu before=%llx after=%llx\n", fired_ ? 1 : 0,
                (long long)fire_offset_, first_ < 0 ? 0LL : (long long)(last_ - first_ + 1), resets_,
                commands_.size(), (unsigned long long)before_, (unsigned long long)after_);
            for (const auto &c : commands_)
                say("cmd %lld %08x %llu\n", (long long)c.offset, c.word, (unsigned long long)c.busy);
            for (const auto &c : unit_commands_)
                say("ucmd %u %lld\n", c.word, (long long)c.offset);
            say("end\n");
            armed_ = false;
        } else if (!strcmp(word, "peek")) {
            unsigned long long site, element;
            if (sscanf(line.c_str(), "peek %llu %llu", &site, &element) != 2 || site >= sites_.size()
                || element >= elements(sites_[site].var)) {
                say("error bad peek request: %s\n", line.c_str());
                return;
            }
            const VerilatedVar *var = sites_[site].var;
            const char *data = element_data(var, element);
            std::string text = "value ";
            unsigned words = (var->entBits() + 31) / 32;
            char hex[16];
            for (unsigned w = words; w-- > 0;) {
                uint32_t value = 0;
                unsigned bytes = var->entSize() - w * 4 < 4 ? var->entSize() - w * 4 : 4;
                memcpy(&value, data + w * 4, bytes);
                snprintf(hex, sizeof(hex), "%08x", value);
                text += hex;
            }
            text += "\n";
            send(text.data(), text.size());
        } else if (!strcmp(word, "dump")) {
            dump(line);
        } else {
            say("error unknown request: %s\n", line.c_str());
        }
    }
};

#endif
