"""Where the program's data lives, from a checkout or from an installed wheel.

The wheel carries kb/, crs/ and prompts/ inside the package as `automanager/data/`; a checkout
(or an editable install) keeps them at the top of the repository. A folder given as a value
(`--kb`), else `AUTOMANAGER_KB`, points the program at another restaurant's menu folder.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


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
