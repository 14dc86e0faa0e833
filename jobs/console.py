"""`python -m sim console` (and `python -m sim` alone): the simulated SoC's console on this terminal."""

import os
import sys

from jobs import options, registry


def interactive(build):
    """The model's console on this terminal until Ctrl-C. The BIOS's serial-boot request is answered
    with a jump to the preloaded firmware (link/serial_boot.py), as the scripted consoles do."""
    import selectors
    import termios
    import tty

    from link import serial_boot
    from link.transport import SocModelTransport, TransportError
    stdin = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin) if os.isatty(stdin) else None
    model = SocModelTransport(build.model, build.gateware_dir)
    seen = b""
    try:
        if saved is not None:
            tty.setcbreak(stdin)            # keys go through as typed; Ctrl-C still ends it
        sel = selectors.DefaultSelector()
        sel.register(model.proc.stdout, selectors.EVENT_READ)
        sel.register(stdin, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj is model.proc.stdout:
                    data = model.read(0)
                    os.write(sys.stdout.fileno(), data)
                    seen = (seen + data)[-64:]
                    if serial_boot.REQUEST.encode() in seen:
                        serial_boot.jump_to_main_ram(model)
                        seen = b""
                else:
                    data = os.read(stdin, 1024)
                    if not data:
                        sel.unregister(stdin)
                    else:
                        model.write(data)
    except KeyboardInterrupt:
        return 0
    except TransportError as error:
        print(f"\n[sim] {error}", file=sys.stderr)
        return 1
    finally:
        model.close()
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)


def main(args, log):
    return interactive(options.simulation(args, log))


registry.register(registry.Job(
    "console", "the console on this terminal (the default with no job)", main,
    add_arguments=options.add_trace, groups=(options.BUILD,),
    description="The simulated SoC's console on this terminal; Ctrl-C ends it. `python -m sim` with "
                "no job runs this."))
