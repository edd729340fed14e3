"""The package layout follows the data's path: no top-level module outside the core types, each
package says what it owns, and no import cycle between packages or between modules."""
import ast
import importlib
import pathlib

import perfmodel

ROOT = pathlib.Path(perfmodel.__file__).parent
CORE_MODULES = {"__init__", "__main__", "cli", "config", "errors", "hardware", "problem"}
# The data's path as a dependency order: a package may import only packages before it (and the core
# types). Search comes after measurement and calibration because it validates its top candidates on a
# GPU (search.validate_top) and scores rankings with calibration's statistics; neither imports search.
PATH_ORDER = ["legality", "families", "sim", "prediction", "kernels", "measure", "microbench",
              "calibration", "search", "interop", "commands"]


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: pathlib.Path) -> set[str]:
    """Absolute names of the perfmodel modules a file imports (at any depth, lazy imports included)."""
    name = _module_name(path)
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("perfmodel"):
                if node.module or not node.level:
                    out.add(mod)
                for alias in node.names:   # `from . import rules` imports a module
                    if (ROOT.parent / (mod + "." + alias.name).replace(".", "/")).exists() or \
                            (ROOT.parent / ((mod + "." + alias.name).replace(".", "/") + ".py")).exists():
                        out.add(mod + "." + alias.name)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("perfmodel"))
    return out


def _files():
    return sorted(ROOT.rglob("*.py"))


def test_no_top_level_module_outside_the_core_types():
    top = {p.stem for p in ROOT.glob("*.py")}
    assert top <= CORE_MODULES, sorted(top - CORE_MODULES)


def test_every_package_says_what_it_owns_and_exports_only_public_names():
    for init in ROOT.glob("*/__init__.py"):
        mod = importlib.import_module(_module_name(init))
        doc = (mod.__doc__ or "").strip()
        assert len(doc) > 80, f"{init} needs a paragraph saying what the package owns"
        for name in getattr(mod, "__all__", []):
            assert not name.startswith("_"), (init, name)
            assert hasattr(mod, name), (init, name)


def _top(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_packages_import_only_earlier_steps_of_the_data_path():
    bad = []
    for f in _files():
        src = _top(_module_name(f))
        if src not in PATH_ORDER or f.name == "__main__.py":   # entry points may reach the CLI
            continue
        for mod in _imports(f):
            dst = _top(mod)
            if dst in PATH_ORDER and dst != src and PATH_ORDER.index(dst) > PATH_ORDER.index(src):
                bad.append(f"{f.relative_to(ROOT)} imports {mod}")
    assert not bad, bad


def test_no_import_cycle_between_modules():
    graph: dict[str, set[str]] = {}
    for f in _files():
        name = _module_name(f)
        # A package's __init__ re-exports its modules; edges into a package from its own modules are
        # the package's public door, not a cycle, so they point at the package's modules instead.
        graph[name] = {m for m in _imports(f) if not (name.startswith(m + ".") and
                                                       (ROOT.parent / m.replace(".", "/")).is_dir())}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, ()):
            if state.get(m) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
            if m in graph and not state.get(m):
                visit(m)
        stack.pop()
        state[n] = 2

    for n in graph:
        if not state.get(n):
            visit(n)
