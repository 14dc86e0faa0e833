"""The peripheral's three command-line options, over the one default."""

import argparse

import pytest

from common.errors import ProjectError
from gateware.interface import PeripheralConfig
from gateware.options import add_peripheral_options, peripheral_config


def parse(argv, group=False):
    parser = argparse.ArgumentParser()
    add_peripheral_options(parser.add_argument_group("peripheral") if group else parser)
    return peripheral_config(parser.parse_args(argv))


def test_no_option_is_the_default():
    assert parse([]) == parse([], group=True) == PeripheralConfig()


def test_each_option_sets_its_field_over_the_default():
    assert parse(["--montmul-lanes", "8"]) == PeripheralConfig(lanes=8)
    assert parse(["--montmul-word-bits", "16", "--montmul-max-bits", "2048"], group=True) == \
        PeripheralConfig(word_bits=16, max_bits=2048)


@pytest.mark.parametrize("argv", [["--montmul-lanes", "3"], ["--montmul-word-bits", "12"],
                                  ["--montmul-max-bits", "100"]])
def test_a_bad_value_is_one_project_error(argv):
    with pytest.raises(ProjectError, match=r"^invalid peripheral configuration: " + argv[0]):
        parse(argv)


def test_the_help_names_the_defaults():
    parser = argparse.ArgumentParser()
    add_peripheral_options(parser)
    text = parser.format_help()
    default = PeripheralConfig()
    for value in (default.word_bits, default.lanes, default.max_bits):
        assert f"default {value}" in text
