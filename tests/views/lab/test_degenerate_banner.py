"""The degenerate banner floating over a host: shown when the group is, sized to its text."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.degenerate_banner import DegenerateBanner


def snapshot(rewards: list[int]):
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards], "textbook")


def test_a_banner_shown_before_it_floats_stays_shown_and_fits_its_text(qtbot):
    banner = DegenerateBanner()  # as a presenter makes it: no parent yet
    banner.show_snapshot(snapshot([1, 1, 1, 1]))  # a degenerate group from the start
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(900, 500)
    banner.float_over(host)
    host.show()
    assert banner.isVisibleTo(host)
    assert banner.parentWidget() is host and not banner.isWindow()
    geometry = banner.geometry()
    assert host.rect().contains(geometry)
    assert geometry.bottom() >= host.height() - 2 * DegenerateBanner.FLOAT_MARGIN
    # As tall as its wrapped text at this width, not the taller hint of a narrower width.
    assert geometry.height() == banner.heightForWidth(geometry.width())
    assert banner.covering() == geometry.height() + 2 * DegenerateBanner.FLOAT_MARGIN
    banner.show_snapshot(snapshot([1, 0, 0, 1]))
    assert not banner.isVisibleTo(host) and banner.covering() == 0


def test_a_group_of_equal_weighted_rewards_is_named_by_its_score(qtbot):
    banner = DegenerateBanner()
    qtbot.addWidget(banner)
    snapshot = build_snapshot(get_problem("mult-23x47"), [True, False], scores=[0.5, 0.5])
    banner.show_snapshot(snapshot)
    assert "Every answer is worth 0.5, so every reward equals the mean" in banner.message.text()


def test_a_banner_hidden_while_its_host_resizes_floats_at_the_new_size_when_shown(qtbot):
    margin = DegenerateBanner.FLOAT_MARGIN
    banner = DegenerateBanner()
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(900, 500)
    banner.float_over(host)
    host.show()
    banner.show_snapshot(snapshot([1, 0, 0, 1]))  # not degenerate: hidden
    host.resize(600, 400)
    qtbot.waitUntil(lambda: host.width() == 600)
    assert banner.covering() == 0
    banner.show_snapshot(snapshot([1, 1, 1, 1]))
    geometry = banner.geometry()
    assert banner.isVisibleTo(host)
    assert geometry.width() == 600 - 2 * margin
    assert geometry.bottom() == 400 - 1 - margin
    assert geometry.height() == banner.heightForWidth(geometry.width())
    assert banner.covering() == geometry.height() + 2 * margin


def test_a_banner_collected_with_its_host_lets_the_host_go_quietly(qtbot):
    """Found in a shuffled run of the suite: the collector cleared a floating banner's
    attributes before deleting its host, whose last events then raised in the banner's filter."""
    import gc

    for _ in range(3):
        banner = DegenerateBanner()
        host = QWidget()
        host.resize(300, 200)
        banner.float_over(host)  # banner -> host (its _host) -> banner (its child): a cycle
        host.show()
        qtbot.waitExposed(host)
        del banner, host
        with qtbot.captureExceptions() as exceptions:
            gc.collect()
        assert exceptions == []
