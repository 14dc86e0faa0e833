"""Where the project lives and where its builds go, and paths as the user should read them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build"


def display_path(path):
    """`path` relative to the working directory when it is below it, else as given."""
    path = Path(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
