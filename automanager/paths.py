"""Where the program's data lives, from a checkout or from an installed wheel.

The wheel carries kb/, crs/ and prompts/ inside the package as `automanager/data/`; a checkout
(or an editable install) keeps them at the top of the repository. A folder given as a value
(`--kb`), else `AUTOMANAGER_KB`, points the program at another restaurant's menu folder.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
NAME_MAX = 255  # bytes of one file or folder name (Linux, macOS, Windows alike)
PATH_MAX = 4095  # bytes of a whole path


def unusable(path: Path | str) -> str | None:
    """Why a path a person gave (an option, a setting) can name no file here, before anything asks
    the system about it (a name over NAME_MAX bytes is an error there, not a missing file); None
    when it may. Said with the part at fault, shortened."""
    text = os.fspath(path)
    if "\0" in text:
        return "it holds a NUL character, which no file name may"
    size = len(os.fsencode(text))
    if size > PATH_MAX:
        return f"it is {size:,} bytes long; a path is at most {PATH_MAX:,}"
    for name in Path(text).parts:
        size = len(os.fsencode(name))
        if size > NAME_MAX:
            shown = name[:24] + "..."
            return f"its part {shown!r} is {size:,} bytes long; a file or folder name is at most {NAME_MAX}"
    return None


def data_dir(name: str) -> Path:
    """The folder `name` (kb, crs, prompts) shipped with the program."""
    for base in (PACKAGE / "data", PACKAGE.parent):
        if (base / name).is_dir():
            return base / name
    raise FileNotFoundError(f"the {name}/ folder is missing from this installation; reinstall automanager")


def kb_dir(folder: Path | None = None) -> Path:
    """The menu knowledge base in use: folder if given, else $AUTOMANAGER_KB, else the shipped
    Taco Bell menu."""
    override = folder or os.environ.get("AUTOMANAGER_KB")
    return Path(override) if override else data_dir("kb")


def pack_dir(name: str) -> Path:
    """A menu pack shipped with the project, by name ("pizza": kb/packs/pizza)."""
    return data_dir("kb") / "packs" / name


def kb_files(folder: Path | None = None) -> list[Path]:
    """Every `.lp` file of a knowledge base folder (see kb_dir), in a stable order."""
    return sorted(kb_dir(folder).glob("*.lp"))
