"""What a piece of Python source imports, for the tests that keep the package's layers apart."""

from __future__ import annotations

import ast


def imported_modules(source: str, module: str) -> list[str]:
    """Every module ``source`` (the code of ``module``) imports, anywhere in it, as absolute dotted names.

    Function bodies count (a lazy import is still an import); relative imports are resolved
    against ``module``'s package; ``from a import b`` gives both ``a`` and ``a.b`` (``b`` may be
    a module); ``importlib.import_module("x")`` and ``__import__("x")`` with a literal give ``x``.
    """
    package = module.rsplit(".", 1)[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found += [base, *(f"{base}.{a.name}" for a in node.names)]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append(str(node.args[0].value))
    return found
