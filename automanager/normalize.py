"""One way to compare names: case, accents, trademark signs and punctuation do not count."""

from __future__ import annotations

import re
import unicodedata


def normalize(text: str) -> str:
    """'Super Wrap®' and 'super  wrap' -> 'super wrap'."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.casefold().replace("&", " and ")
    return " ".join(re.findall(r"[a-z0-9]+", text))
