"""Cheaper Jinja2 rendering with the same output: escaping to plain strings, a cheap ``context.call``.

Three changes to how Jinja2 runs a template, each giving the bytes Jinja2's own
path gives (``tests/test_page_render.py`` renders every kind of page both ways
and compares):

- :class:`CodeGenerator` compiles ``{{ value }}`` (with autoescaping) to
  ``escape_output(value)`` instead of ``escape(value)``: :func:`escape_output`
  escapes exactly as :func:`markupsafe.escape` does but returns the ``str``
  rather than wrapping it in a new :class:`~markupsafe.Markup` (the pieces are
  only joined; ``Markup(concat(…))`` still wraps a macro's output).
- :class:`Context` answers ``context.call(f, …)`` for plain functions, bound
  methods, builtins (e.g. a ``dict.__getitem__``) and macros without
  ``pass_context`` & co. at once, without Jinja2's checks of the callable's
  ``__call__``; every other callable takes Jinja2's own :meth:`jinja2.runtime.Context.call`.
- :func:`install` puts both into an environment.

The code generator overrides a private method of Jinja2
(``CodeGenerator._output_child_pre``), so ``pyproject.toml`` pins ``jinja2>=3.1,<3.2``.
Compiled templates differ from Jinja2's own: a bytecode cache must be keyed by the
code version as well (see :func:`site_builder.pipeline.template_bytecode`).
Sources: jinja2 3.1 ``compiler.py`` (``_output_child_pre``, ``visit_Template``) and
``runtime.py`` (``Context.call``, ``_PassArg.from_obj``); markupsafe 3.0 ``escape``.
"""

from __future__ import annotations

import types

import jinja2
import jinja2.compiler
import jinja2.runtime
from markupsafe import Markup

try:  # markupsafe's C escaping of a str to a str (private; the pure-Python one where it is missing)
    from markupsafe._speedups import _escape_inner
except ImportError:  # pragma: no cover - markupsafe built without its C extension
    try:
        from markupsafe._native import _escape_inner
    except ImportError:
        from markupsafe import escape as _markup_escape

        def _escape_inner(s: str) -> str:
            return str(_markup_escape(s))

__all__ = ["escape_output", "Context", "CodeGenerator", "install"]


def escape_output(value) -> str:
    """``value`` as autoescaped template output: what ``str(markupsafe.escape(value))`` gives
    (``&``, ``<``, ``>``, ``'`` and ``"`` escaped in a plain ``str`` or in ``str(value)``; an
    object with ``__html__`` as that gives it, unescaped), without making a :class:`Markup`
    for a plain ``str``. Raises what ``str(value)`` raises (e.g. ``jinja2.UndefinedError``)."""
    if type(value) is str:
        return _escape_inner(value)
    if type(value) is Markup:
        return value
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    return _escape_inner(str(value))


#: Callables that never carry ``jinja_pass_arg`` (they take no attributes; Jinja2's check of their
#: ``__call__``, a method-wrapper, never finds one either): :meth:`Context.call` calls them at once.
_PLAIN_TYPES = frozenset({types.BuiltinFunctionType, types.MethodWrapperType})
_FUNCTION, _METHOD, _MACRO = types.FunctionType, types.MethodType, jinja2.runtime.Macro
assert not hasattr(_MACRO, "jinja_pass_arg") and not hasattr(_FUNCTION, "jinja_pass_arg")


class Context(jinja2.runtime.Context):
    """Jinja2's template context with a cheaper :meth:`call` (same results)."""

    def call(__self, __obj, *args, **kwargs):  # noqa: N805 - Jinja2's own signature (names of its own)
        """``__obj(*args, **kwargs)`` as :meth:`jinja2.runtime.Context.call` does it: at once (dropping
        the code generator's ``_loop_vars``/``_block_vars``) for builtins and method-wrappers, and for
        plain functions, methods of plain functions and macros that carry no ``jinja_pass_arg``
        (``pass_context`` & co.; looked up in their ``__dict__``, where Jinja2's ``hasattr`` finds it,
        without raising an AttributeError to answer no); every other callable through Jinja2's own
        method. (Their ``__call__`` is a method-wrapper or ``Macro.__call__``, which carry none.)"""
        kind = type(__obj)
        if kind is _FUNCTION or kind is _MACRO:
            plain = "jinja_pass_arg" not in __obj.__dict__
        elif kind is _METHOD:
            function = __obj.__func__
            plain = type(function) is _FUNCTION and "jinja_pass_arg" not in function.__dict__
        else:
            plain = kind in _PLAIN_TYPES
        if plain:
            if kwargs:
                kwargs.pop("_block_vars", None)
                kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception")
        return jinja2.runtime.Context.call(__self, __obj, *args, **kwargs)


class CodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja2's code generator, but autoescaped output is :func:`escape_output` (a ``str``)."""

    def visit_Template(self, node, frame=None) -> None:
        """Jinja2's module, with :func:`escape_output` imported first."""
        self.writeline("from site_builder.jinja_fast import escape_output")
        super().visit_Template(node, frame)

    def _output_child_pre(self, node, frame, finalize) -> None:
        """Open the call around an output expression: ``escape_output(`` where Jinja2 writes ``escape(``."""
        if not frame.eval_ctx.volatile and frame.eval_ctx.autoescape:
            self.write("escape_output(")
            if finalize.src is not None:
                self.write(finalize.src)
            return
        super()._output_child_pre(node, frame, finalize)


def install(env: jinja2.Environment) -> jinja2.Environment:
    """Make ``env`` compile with :class:`CodeGenerator` and render with :class:`Context`
    (before any template is loaded); returns ``env``."""
    env.code_generator_class = CodeGenerator
    env.context_class = Context
    return env
