"""`python -m sim console` (and `python -m sim` alone): the simulated SoC's console on this terminal."""

import os
import sys
import time

from jobs import options, registry


def interactive(build, timeout=None):
    """The model's console on this terminal until Ctrl-C (or `timeout` wall-clock seconds: exit status
    1). The BIOS's serial-boot request is answered with a jump to the preloaded firmware
    (link/serial_boot.py), as the scripted consoles do."""
    import selectors
    import termios
    import tty

    from link import serial_boot
    from link.transport import SocModelTransport, TransportError
    stdin = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin) if os.isatty(stdin) else None
    model = SocModelTransport(build.model, build.gateware_dir, entropy=build.entropy)
    seen = b""
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        if saved is not None:
            tty.setcbreak(stdin)            # keys go through as typed; Ctrl-C still ends it
        sel = selectors.DefaultSelector()
        sel.register(model.proc.stdout, selectors.EVENT_READ)
        sel.register(stdin, selectors.EVENT_READ)
        while True:
            events = sel.select(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if deadline is not None and time.monotonic() >= deadline:
                print(f"\n[sim] time limit of {timeout:g} s passed", file=sys.stderr)
                return 1
            for key, _ in events:
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
    return interactive(options.simulation(args, log), timeout=args.timeout)


registry.register(registry.Job(
    "console", "the console on this terminal (the default with no job)", main,
    add_arguments=options.add_trace, groups=(options.BUILD,),
    description="The simulated SoC's console on this terminal; Ctrl-C ends it. `python -m sim` with "
                "no job runs this."))
