"""What a user sees of a label's text at its box's right edge."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel


def ink_in_last_column(label: QLabel) -> bool:
    """Whether the label's right-most pixel column holds text: a letter cut at the box's edge."""
    image = label.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine() // 4, 4
    )[:, : image.width(), :3]
    background = pixels[0, 0].astype(int)
    return bool((np.abs(pixels[:, -1].astype(int) - background).sum(axis=1) > 150).any())
