"""Accessibility events and custom interfaces, in one place for every painted view.

``send`` hands an event to Qt (which forwards it to AT-SPI, UI Automation or NSAccessibility when
an assistive technology listens) and to any listener a test added: PySide6 6.11 does not expose
``QAccessible::installUpdateHandler``, so tests observe events here. ``wanted`` says whether
building an event is worth it: Qt drops every event while no screen reader is active.

``register(widget_class, interface_class)`` gives a painted widget its own
``QAccessibleInterface`` (a ``QAccessibleWidget`` subclass) through one factory installed with
``QAccessible.installFactory``; Qt asks it once per widget and caches the answer.
``chart_interface`` is a chart's; ``described_chart_interface`` one whose description the
widget writes only when it is read (it asks the Python widget, not Qt's stored property).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAccessible, QAccessibleEvent, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget, QWidget

__all__ = [
    "DescribedChart",
    "add_listener",
    "chart_interface",
    "described_chart_interface",
    "register",
    "send",
    "wanted",
]

Listener = Callable[[QAccessibleEvent], None]
_listeners: list[Listener] = []
_interfaces: dict[type, Callable[[QWidget], QAccessibleInterface]] = {}
_installed = False


def add_listener(listener: Listener) -> Callable[[], None]:
    """Call ``listener(event)`` for every event sent (before Qt gets it); returns the remover.
    The event lives only during the call: read what you need from it there."""
    _listeners.append(listener)

    def remove() -> None:
        if listener in _listeners:
            _listeners.remove(listener)

    return remove


def wanted() -> bool:
    """Whether anyone hears events now: a screen reader (Qt's accessibility active) or a test."""
    return bool(_listeners) or QAccessible.isActive()


def send(event: QAccessibleEvent) -> None:
    """Send ``event`` to the listeners and to Qt's accessibility bridge."""
    for listener in list(_listeners):
        listener(event)
    QAccessible.updateAccessibility(event)


def register(widget_class: type, interface: Callable[[QWidget], QAccessibleInterface]) -> None:
    """Give every ``widget_class`` widget (exactly that class) the interface ``interface(w)``
    makes; installs the one factory on first use."""
    global _installed
    _interfaces[widget_class] = interface
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True


def _factory(_key: str, obj: object) -> QAccessibleInterface | None:
    make = _interfaces.get(type(obj))
    return None if make is None else make(obj)  # type: ignore[arg-type]


def chart_interface(widget: QWidget) -> QAccessibleInterface:
    """A chart's interface: role Chart (not the layout "filler" a plot widget is otherwise), its
    accessible name and its text alternative (the description) as the widget sets them."""
    return QAccessibleWidget(widget, QAccessible.Role.Chart, "")


class DescribedChart(QAccessibleWidget):
    """A chart (role Chart) whose description is read through the widget's Python
    ``accessibleDescription()``: a chart that writes its text alternative when it is read, not
    on every click, answers here. Qt's own ``QAccessibleWidget`` reads the property stored in
    C++ and would get the text of the last snapshot described, not of the one shown."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget, QAccessible.Role.Chart, "")
        self._chart = widget

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Description:
            text = self._chart.accessibleDescription()
            if text:
                return text
        return super().text(kind)


def described_chart_interface(widget: QWidget) -> QAccessibleInterface:
    """The interface of a chart that describes itself when read (see ``DescribedChart``)."""
    return DescribedChart(widget)
