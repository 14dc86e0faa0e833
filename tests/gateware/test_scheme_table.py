"""A new exponent scheme, end to end, through the files docs/extending.md lists for one and no others.

The tracked tree is copied to a temporary directory, and in the copy a scheme of its own is added: a
second Montgomery ladder under a new name with a new opcode (EXP_TWIN_LADDER, the first free code), its
machine with states of its own and its formal facts, its program in the model, the firmware's backend
that runs it (hw_seq_twin_ladder), and its row in the contract's opcode table. A script run on the copy
then checks that every layer follows: the command decoder accepts the opcode and the RTL's result and
cycles are the model's (an Amaranth simulation of one short exponentiation), the C header has the
opcode and the implementation, the formal proofs gather the new machine's facts (without running
SymbiYosys), the console protocol lists the implementation, and the firmware's table of
implementations has its row and its backend issues the opcode (rsa_hw.c built for the host over the
peripheral's recording stand-in), and the console fuzzer's model of the peripheral answers it. The files
edited are the doc's table, no more."""

import textwrap

from tree_copy import add_entry, doc_files, replace as _replace, run_python

#: The scheme added in the copy.
OPCODE, OPCODE_VALUE, SCHEME, IMPL = "EXP_TWIN_LADDER", 15, "twin_ladder", "hw_seq_twin_ladder"


def _interface(root):
    path = root / "gateware" / "interface.py"
    _replace(path, "    EXP_FIXED_PAIR = 9\n", f"    EXP_FIXED_PAIR = 9\n    {OPCODE} = {OPCODE_VALUE}\n")
    _replace(path, 'impl="hw_seq", impl_description="peripheral sequencer"),\n)\n',
             'impl="hw_seq", impl_description="peripheral sequencer"),\n'
             f'    ExponentScheme("{SCHEME}", Opcode.{OPCODE}, constant_time=True, impl="{IMPL}",\n'
             '                   impl_description="peripheral sequencer, Montgomery ladder"),\n)\n')


def _schemes(root):
    """The ladder's machine again, its states prefixed ET_ instead of EL_."""
    path = root / "gateware" / "montmul" / "schemes.py"
    text = path.read_text()
    ladder = text[text.index("class LadderExponent(SchemeMachine):"):text.index("class FixedExponent(")]
    machine = ladder.replace("LadderExponent", "TwinLadderExponent").replace('"EL_', '"ET_')
    assert machine.count('"ET_') > 10 and '"EL_' not in machine
    _replace(path, "#: The machine of each exponent scheme", machine + "#: The machine of each exponent scheme")
    _replace(path, '"fixed": FixedExponent}', f'"fixed": FixedExponent, "{SCHEME}": TwinLadderExponent}}')


def _model(root):
    _replace(root / "gateware" / "model.py", '"fixed": _fixed_program_k}',
             f'"fixed": _fixed_program_k, "{SCHEME}": _ladder_program}}')


def _rsa_hw(root):
    """A backend whose secret exponentiations are the new opcode's (public ones EXP_WINDOW's)."""
    path = root / "firmware" / "rsa" / "rsa_hw.c"
    _replace(path, "enum exp_kind { EXP_CPU, EXP_SEQ_FIXED, EXP_SEQ_WINDOW };",
             "enum exp_kind { EXP_CPU, EXP_SEQ_FIXED, EXP_SEQ_WINDOW, EXP_SEQ_TWIN_LADDER };")
    _replace(path, "kind == EXP_SEQ_FIXED && secret ? MONTMUL_OP_EXP_FIXED : MONTMUL_OP_EXP_WINDOW",
             f"!secret ? MONTMUL_OP_EXP_WINDOW : kind == EXP_SEQ_TWIN_LADDER ? MONTMUL_OP_{OPCODE}\n"
             "\t\t\t           : kind == EXP_SEQ_FIXED ? MONTMUL_OP_EXP_FIXED : MONTMUL_OP_EXP_WINDOW")
    _replace(path, "const rsa_backend rsa_hw_seq_window = { hw_mul, seq_window_exp, NULL, 0, NULL };\n",
             "const rsa_backend rsa_hw_seq_window = { hw_mul, seq_window_exp, NULL, 0, NULL };\n\n"
             "static int seq_twin_ladder_exp(const mont_ctx *m, uint32_t *r, const uint32_t *base, const uint32_t *e,\n"
             "                               unsigned ebits, int secret)\n{\n"
             "\treturn hw_exp(m, r, base, e, ebits, EXP_SEQ_TWIN_LADDER, secret);\n}\n\n"
             f"const rsa_backend rsa_{IMPL} = {{ hw_mul, seq_twin_ladder_exp, NULL, 0, NULL }};\n")


def _peripheral_doc(root):
    _replace(root / "docs" / "peripheral.md", "| EXP_FIXED_PAIR | EXP_FIXED in two contexts in lock step (see below) |\n",
             "| EXP_FIXED_PAIR | EXP_FIXED in two contexts in lock step (see below) |\n"
             f"| {OPCODE} | the Montgomery ladder again, a scheme of its own |\n")


#: What the copy gets, file by file: the files docs/extending.md lists for a new scheme.
EDITS = {
    "gateware/interface.py": _interface,
    "gateware/montmul/schemes.py": _schemes,
    "gateware/model.py": _model,
    "firmware/rsa/rsa_hw.c": _rsa_hw,
    "docs/peripheral.md": _peripheral_doc,
}

#: Run in the copy, with the copy first on the path.
CHECKS = textwrap.dedent(f'''
    import ctypes, random, subprocess, sys, tempfile
    from pathlib import Path

    from gateware import interface, model
    from gateware.interface import Opcode, PeripheralConfig
    from gateware.header import c_header
    from gateware.montmul.peripheral import MontgomeryPeripheral
    from montmul_harness import W, bus_words, twin, mont_exp_ref

    op = Opcode.{OPCODE}
    scheme = interface.exponent_scheme(op)
    assert scheme.name == "{SCHEME}" and scheme.constant_time and scheme.impl == "{IMPL}"

    # the decoder takes the opcode, the RTL runs the new machine as the model counts it
    TINY = PeripheralConfig(max_bits=64, lanes=4, word_bits=W)

    async def scenario(d):
        rng = random.Random(7)
        bits, exponent_bits = 48, 11
        size = model.size_words(bits, W)
        nw = bus_words(size)
        n = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        await d.load_modulus(n, size, word_bits=W)
        a, e = rng.randrange(n), rng.getrandbits(exponent_bits) | 1 << (exponent_bits - 1)
        await d.write_slot(1, a, nw)
        await d.write_slot(2, e, nw)
        await d.write_slot(3, (1 << (W * size)) % n, nw)
        cycles, status = await d.exp(3, 1, 2, exponent_bits, op)
        return cycles, status, await d.read_slot(3, nw), mont_exp_ref(a, e, n, size)

    rtl, expected = twin(TINY, scenario)
    cycles, status, result, reference = rtl
    assert rtl == expected, (rtl, expected)
    assert status["error"] == 0 and result == reference
    assert cycles == model.exp_cycles(TINY, 48, "{SCHEME}", exponent_bits=11)
    assert cycles <= model.exp_cycles_bound(model.mul_cycles(TINY, 48), 11)

    # the header: the opcode and the firmware's implementation
    header = c_header(PeripheralConfig())
    assert "#define MONTMUL_OP_{OPCODE} {OPCODE_VALUE}" in header
    assert "X({IMPL}, {IMPL.upper()}, MONTMUL_OP_{OPCODE}, MONTMUL_OP_NOP, 1)" in header

    # the proofs gather the machine's facts (nothing run)
    from gateware.tools import formal
    assert op in formal.CONSTANT_TIME_OPCODES and op not in formal.LEAKY_OPCODES
    assert formal.SCHEME_FSMS["{SCHEME}"] == "sequencer.{SCHEME}.fsm_state"
    [cover] = [prop for prop in formal.PROPERTIES if prop.name == "constant_time_is_not_vacuous"]
    assert ("{SCHEME}", "ET_INIT_WAIT") in cover.cover_states and "ET_INIT_WAIT" in cover.claim
    fsms = formal.machine_states(TINY)
    states = fsms[formal.SCHEME_FSMS["{SCHEME}"]]
    assert "ET_INIT_WAIT" in states and not any(state.startswith("EL_") for state in states)
    ports = {{"cmd": ("input", 32), "cmd_stb": ("input", 1), "wdata_stb": ("input", 1), "rdata_stb": ("input", 1),
             "status": ("output", 32), "irq": ("output", 1)}}
    assert f"== {{states['ET_INIT_WAIT']}}); // ET_INIT_WAIT" in formal.miter(cover, ports, set(), fsms)
    [proved] = [prop for prop in formal.PROPERTIES if prop.name == "constant_time"]
    assert op in proved.opcodes

    # the console protocol: the implementation, constant-time, on the peripheral; no product row of its own
    from soc import console_protocol as protocol, firmware
    assert list(protocol.IMPLS) == ["sw", "hw_cpu", "hw_seq", "{IMPL}", "hw_seq_window"]
    assert "{IMPL}" in protocol.CONSTANT_TIME_IMPLS and "{IMPL}" in protocol.PERIPHERAL_IMPLS
    assert [o for o, i in protocol.bench_rows() if i == "{IMPL}"] == ["public", "private", "private_crt"]
    assert "#define IMPL_{IMPL.upper()}_CONSTANT_TIME 1" in protocol.c_header()

    # the firmware: the table's row (preprocessed with the generated headers), and the backend built for
    # the host over the recording stand-in issues the opcode
    gen = Path(tempfile.mkdtemp())
    headers = {{**firmware.generated_headers(512), "peer_build.h": firmware.peer_header({{"mbedtls": None, "bearssl": None}}),
               "montmul.h": header}}
    for name, text in headers.items():
        (gen / name).write_text(text)
    host = firmware.ROOT / "tests" / "firmware"
    impls = subprocess.run(["gcc", "-E", "-P", f"-I{{gen}}", f"-I{{firmware.FIRMWARE_DIR}}", f"-I{{host / 'host_litex'}}",
                            f"-I{{host / 'fuzz' / 'host'}}", "-include", "firmware_config.h",
                            str(firmware.FIRMWARE_DIR / "rsa" / "rsa_impls.c")],
                           capture_output=True, text=True, check=True).stdout
    table = impls.split("rsa_impls[] = {{")[1].split("}};")[0]
    row = '{{ "{IMPL}", &rsa_{IMPL}, 1, ((void *)0) }}'
    assert table.index('&rsa_hw_seq,') < table.index(row) < table.index('&rsa_hw_seq_window,'), table
    assert "extern const rsa_backend rsa_{IMPL};" in impls

    # the console fuzzer's C model of the peripheral answers every scheme's opcode
    fuzz_model = subprocess.run(["gcc", "-E", "-P", f"-I{{gen}}", f"-I{{host / 'host_litex'}}",
                                 str(host / "fuzz" / "montmul_model.c")], capture_output=True, text=True, check=True).stdout
    assert "case {OPCODE_VALUE}:" in fuzz_model

    import test_rsa_hw_commands as recorder
    from bnlib import BigNumLib, key_numbers, limbs, words_for
    CONFIG = PeripheralConfig(max_bits=1024, lanes=16, word_bits=W)
    lib = gen / "librecorder.so"
    recorder.build_recorder(CONFIG, lib)
    lib = BigNumLib(lib)
    n, e, d, p, q, dp, dq, qinv = key_numbers(512)
    key = lib.rsa_key(n, e, d, p, q, dp, dq, qinv)
    rc, ctx = lib.rsa_ctx(key)
    assert rc == 0
    c = lib.lib
    c.rsa_hw_forget()
    c.record_clear()
    out = (ctypes.c_uint32 * words_for(512))()
    backend = ctypes.addressof(ctypes.c_void_p.in_dll(c, "rsa_{IMPL}"))
    c.rsa_private(backend, ctypes.byref(key), ctypes.byref(ctx), out, limbs(pow(7, 1000, n), words_for(512)))
    kinds = (ctypes.c_uint32 * recorder.RECORD_MAX).in_dll(c, "record_kind")
    values = (ctypes.c_uint32 * recorder.RECORD_MAX).in_dll(c, "record_value")
    commands = [values[i] for i in range(ctypes.c_uint.in_dll(c, "record_len").value) if kinds[i] == recorder.RECORD_CMD]
    ops = [Opcode(recorder.COMMAND.from_bits(word).op) for word in commands]
    assert ops.count(op) == 1 and Opcode.EXP_FIXED not in ops, ops

    # the contract's page lists the opcode
    assert "| {OPCODE} |" in (firmware.ROOT / "docs" / "peripheral.md").read_text()
    print("new scheme: every layer follows")
''')


def test_the_doc_lists_the_files_this_test_edits():
    files = doc_files("A new exponent scheme")
    assert files == list(EDITS) and len(files) <= 5


def test_a_new_scheme_reaches_every_layer(tmp_path):
    copy, edited = add_entry(tmp_path, EDITS.values())
    assert edited == sorted(doc_files("A new exponent scheme"))
    assert "every layer follows" in run_python(copy, CHECKS, paths=("", "tests/gateware", "tests/firmware"))
