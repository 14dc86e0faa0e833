"""The peripheral's configuration on a command line: the same three options in every entry point
(``python -m gateware``, ``python -m sim``, the board modules), over the one default,
``PeripheralConfig()``."""

from __future__ import annotations

import dataclasses

from common.errors import ProjectError

from .interface import PeripheralConfig, WORD_BITS_CHOICES

__all__ = ["add_peripheral_options", "peripheral_config"]

#: (option, PeripheralConfig field, metavar, what it sets) of each option.
_OPTIONS = (
    ("--montmul-word-bits", "word_bits", "W",
     f"word width W of the lanes ({', '.join(map(str, WORD_BITS_CHOICES))})"),
    ("--montmul-lanes", "lanes", "N", "multiplier lanes (a power of two, at least 4)"),
    ("--montmul-max-bits", "max_bits", "BITS", "largest operand in bits (a multiple of 32)"),
)


def add_peripheral_options(parser):
    """Adds ``--montmul-word-bits``, ``--montmul-lanes`` and ``--montmul-max-bits`` to ``parser`` (an
    argparse parser or argument group, LiteX's target group too); unset, each keeps the default's
    value."""
    default = PeripheralConfig()
    for option, field, metavar, what in _OPTIONS:
        parser.add_argument(option, dest="montmul_" + field, type=int, default=None, metavar=metavar,
                            help=f"Montgomery peripheral: {what}; default {getattr(default, field)}")
    return parser


def peripheral_config(args) -> PeripheralConfig:
    """The configuration ``args`` (parsed with ``add_peripheral_options``) asks for: the default with the
    options given.  ProjectError if the result is not a valid configuration."""
    overrides = {field: getattr(args, "montmul_" + field) for _, field, _, _ in _OPTIONS
                 if getattr(args, "montmul_" + field, None) is not None}
    try:
        return dataclasses.replace(PeripheralConfig(), **overrides)
    except ValueError as error:
        given = " ".join(f"{option} {overrides[field]}" for option, field, _, _ in _OPTIONS if field in overrides)
        raise ProjectError(f"invalid peripheral configuration: {given}: {error}") from None
