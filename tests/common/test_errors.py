"""common/errors.py: how a command reports a ProjectError."""

from common.errors import ProjectError, reports_errors


def test_a_project_error_becomes_a_message_and_status_1(capsys):
    @reports_errors
    def main(fail):
        if fail:
            raise ProjectError("the widget is missing")
        return 0

    assert main(False) == 0
    assert main(True) == 1
    err = capsys.readouterr().err
    assert err == "error: the widget is missing\n"


def test_other_exceptions_are_not_hidden():
    @reports_errors
    def main():
        raise ValueError("a bug")

    try:
        main()
    except ValueError as error:
        assert str(error) == "a bug"
    else:
        raise AssertionError("a bug was reported as a user error")
