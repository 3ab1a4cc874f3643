"""The Textual browser: :mod:`~tui.browser.app` builds and runs it; the widgets, screens and
``papertray.tcss`` live beside it. Every library call runs in a thread worker
(:mod:`~tui.browser.workers`).
"""
