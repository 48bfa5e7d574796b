"""nvsim's Dash dashboard: build a set-up from the catalog, see its predictions, compare, export.

``nvsim dashboard`` starts it (dashboard.app.run); dashboard.core holds the logic without Dash.
"""

__all__ = ["create_app", "run"]


def create_app(*args, **kwargs):
    """The Dash app (imported lazily: `import dashboard` stays cheap)."""
    from .app import create_app as _create
    return _create(*args, **kwargs)


def run(*args, **kwargs):
    from .app import run as _run
    return _run(*args, **kwargs)
