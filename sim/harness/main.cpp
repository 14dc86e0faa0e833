// The simulated SoC's main loop: our replacement for LiteX's sim.c + clocker + serial2console.
//
// LiteX's harness steps the model through libevent with a module call per half clock period and
// flushes its tracer on every step, and its Makefile always builds the model with tracing compiled
// in. This loop does the same work with none of that: one clock, the UART stream pads on the
// model's stdin/stdout, the same semantics cycle for cycle (the clock rises at time 0; after each
// rising edge the console takes a byte the SoC offers and presents the next typed one, as LiteX's
// serial2console does).
//
// The model runs until $finish, SIGTERM/SIGINT or the end of its stdin; it then prints one line
// `sim cycles=<n> seconds=<wall> ` on stderr (link/transport.py reads it). Built with SIM_TRACE (the
// `--trace` model), it also writes every signal to sim.vcd.
//
// SIGUSR1 asks it to wait for input: the host sends it when the console has printed its prompt and
// nothing is typed yet (link/transport.py). The model then stops clocking until stdin has a byte (or
// ends), instead of simulating the firmware's wait for a key at full speed on a core another
// simulation could use. No simulated cycle changes but the idle ones it does not run; `seconds` is
// the wall time spent simulating, without those waits.
//
// The entropy source's raw samples come from here (soc/entropy.py): one bit of a seeded xorshift64*
// generator per sample (`+entropy_seed=<n>`, default 1), or one constant bit with `+entropy_mode=stuck`,
// which the source's repetition count test fails. A sample is offered only while the source has no word
// waiting (its `ready` pad), so the source takes the generator's bits in order whenever the firmware
// reads: the same seed gives the same words, however the host's typing falls in simulated time.
//
// Built with SIM_FAULTS (the fault-injection model, sim/fault_model.py), it can flip one bit of the
// peripheral's state at a chosen cycle: the peripheral's registers and memories are public in that
// model only (a Verilator configuration file, never the RTL), and this loop reaches them through
// Verilator's scope and variable tables. See fault_hook.h.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "Vsim.h"
#include "verilated.h"
#ifdef SIM_FAULTS
#include "fault_hook.h"
#endif
#ifdef SIM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace {

volatile sig_atomic_t stop_requested = 0;
volatile sig_atomic_t idle_requested = 0;

void on_signal(int) { stop_requested = 1; }

void on_idle_request(int) { idle_requested = 1; }

// Typed bytes waiting for the SoC's UART, and bytes the SoC sent, waiting for stdout.
struct Uart {
    static constexpr size_t RX_SIZE = 1 << 16;
    unsigned char rx[RX_SIZE];
    size_t rx_start = 0, rx_len = 0;
    unsigned char tx[4096];
    size_t tx_len = 0;
    bool stdin_open = true;

    void flush_tx() {
        size_t done = 0;
        while (done < tx_len) {
            ssize_t n = write(STDOUT_FILENO, tx + done, tx_len - done);
            if (n <= 0) {
                stop_requested = 1;   // nobody reads us any more
                break;
            }
            done += (size_t)n;
        }
        tx_len = 0;
    }

    void put(unsigned char byte) {
        tx[tx_len++] = byte;
        if (tx_len == sizeof(tx))
            flush_tx();
    }

    // Moves what stdin has into the receive queue, without waiting.
    void poll_stdin() {
        if (!stdin_open || rx_len == RX_SIZE)
            return;
        struct pollfd fd = {STDIN_FILENO, POLLIN, 0};
        if (poll(&fd, 1, 0) <= 0 || !(fd.revents & (POLLIN | POLLHUP)))
            return;
        unsigned char buf[4096];
        size_t room = RX_SIZE - rx_len;
        ssize_t n = read(STDIN_FILENO, buf, room < sizeof(buf) ? room : sizeof(buf));
        if (n <= 0) {
            stdin_open = false;
            return;
        }
        for (ssize_t i = 0; i < n; i++)
            rx[(rx_start + rx_len++) % RX_SIZE] = buf[i];
    }

    // Blocks until stdin has a byte, ends, or a stop is requested: the host's idle request. A
    // readable `other` descriptor (the fault control) calls `serve` and the wait goes on.
    template <typename Serve>
    void wait_stdin(int other, Serve serve) {
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {other, POLLIN, 0}};
        while (stdin_open && !rx_len && !stop_requested) {
            int n = poll(fds, other >= 0 ? 2 : 1, -1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n > 0 && other >= 0 && fds[1].revents) {
                serve();
                continue;
            }
            break;
        }
        poll_stdin();
    }
};

// The simulated noise source: a seeded xorshift64* (Vigna), its top bit a sample; or stuck at one bit.
struct EntropyBits {
    uint64_t state = 1;
    bool stuck = false;

    void configure(VerilatedContext &context) {
        const char *seed = context.commandArgsPlusMatch("entropy_seed=");
        if (*seed)
            state = strtoull(seed + strlen("+entropy_seed="), nullptr, 0);
        // xorshift's state must not be zero; mix the seed so that nearby seeds start far apart
        state = (state ^ 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
        if (!state)
            state = 1;
        const char *mode = context.commandArgsPlusMatch("entropy_mode=");
        if (*mode && strcmp(mode + strlen("+entropy_mode="), "ok") != 0) {
            if (strcmp(mode + strlen("+entropy_mode="), "stuck") != 0) {
                fprintf(stderr, "unknown +entropy_mode (ok or stuck): %s\n", mode);
                exit(2);
            }
            stuck = true;
        }
    }

    unsigned next() {
        if (stuck)
            return 1;
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return (unsigned)((state * 0x2545f4914f6cdd1dull) >> 63);
    }
};

}  // namespace

int main(int argc, char **argv) {
    // Cycles between two looks at stdin and flushes of stdout: about a tenth of a millisecond of
    // wall time, so a host waiting for an answer (an SFL frame's acknowledgement in a serial boot)
    // waits little (2048 took the serial-boot test's upload 21.6 s, 256 takes it 15.5 s; the poll
    // costs no measurable speed).
    constexpr uint64_t IO_INTERVAL = 256;

    auto context = std::make_unique<VerilatedContext>();
    context->commandArgs(argc, argv);
    auto top = std::make_unique<Vsim>(context.get());
#ifdef SIM_TRACE
    context->traceEverOn(true);
    auto vcd = std::make_unique<VerilatedVcdC>();
    top->trace(vcd.get(), 99);
    vcd->open("sim.vcd");
#endif
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGUSR1, on_idle_request);

    static Uart uart;
    EntropyBits entropy;
    entropy.configure(*context);
#ifdef SIM_FAULTS
    static FaultHook faults;
    faults.open(top.get());
#endif
    auto started = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration waited{};
    uint64_t cycles = 0;
    top->sys_clk = 0;
    top->sim_trace = 0;
    top->serial_source_ready = 0;
    top->serial_sink_valid = 0;
    top->serial_sink_data = 0;
    top->entropy_raw = 0;
    top->entropy_raw_valid = 0;

    while (!stop_requested && !context->gotFinish()) {
        // Rising edge, then the console's side of the stream pads (LiteX's serial2console tick).
        top->sys_clk = 1;
        top->eval();
#ifdef SIM_TRACE
        vcd->dump(cycles * 10000);
#endif
        top->serial_source_ready = 1;
        if (top->serial_source_valid)
            uart.put(top->serial_source_data);
        top->serial_sink_valid = 0;
        if (top->serial_sink_ready && uart.rx_len) {
            top->serial_sink_data = uart.rx[uart.rx_start];
            uart.rx_start = (uart.rx_start + 1) % Uart::RX_SIZE;
            uart.rx_len--;
            top->serial_sink_valid = 1;
        }
        // The source's next sample, taken at the next rising edge, unless a word waits there.
        top->entropy_raw_valid = !top->entropy_ready;
        if (top->entropy_raw_valid)
            top->entropy_raw = entropy.next();
        // Falling edge.
        top->sys_clk = 0;
        top->eval();
#ifdef SIM_TRACE
        vcd->dump(cycles * 10000 + 5000);
#endif
#ifdef SIM_FAULTS
        if (faults.step(cycles, top.get()))
            break;                          // the host's cycle limit after arming passed
#endif
        if (++cycles % IO_INTERVAL == 0) {
            uart.flush_tx();
            uart.poll_stdin();
#ifdef SIM_FAULTS
            faults.poll(cycles);
#endif
            if (idle_requested) {
                idle_requested = 0;
                auto waiting = std::chrono::steady_clock::now();
#ifdef SIM_FAULTS
                uart.wait_stdin(faults.control_fd(), [&] { faults.poll(cycles); });
#else
                uart.wait_stdin(-1, [] {});
#endif
                waited += std::chrono::steady_clock::now() - waiting;
            }
            if (!uart.stdin_open && !uart.rx_len)
                break;                      // nothing more will be typed: the session is over
        }
    }
    uart.flush_tx();
    top->final();
#ifdef SIM_TRACE
    vcd->close();
#endif
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started - waited).count();
    fprintf(stderr, "\nsim cycles=%llu seconds=%.3f\n", (unsigned long long)cycles, seconds);
    return 0;
}
