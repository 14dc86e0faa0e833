"""The design prepared for Amaranth's Python simulator (pysim) so that it evaluates less per cycle.

pysim compiles each fragment's comb statements into one process, run whole whenever any signal it reads
changes.  A component that only wires its parts together (``MontMulCore``, ``MontgomeryPeripheral``) holds
a hundred assignments in one fragment: each change in any part re-ran all of them, five times a cycle.
``split_comb`` gives the comb statements of every fragment their own child fragments, grouped by the
fragments that drive what they read, so a change wakes only the assignments that read it.

The simulated behaviour is the same: pysim's comb statements read the committed values of their inputs
(never a value assigned earlier in the same process), so a fragment's comb statements can be run in any
grouping, as long as all the statements that assign one signal stay together and in their order, which
the grouping keeps.  Nothing here reaches the generated Verilog: only the simulators of the tests and of
``driver.simulate`` see the split fragments.  It reads Amaranth 0.5's fragment internals (the version is
pinned in pyproject.toml).
"""

from amaranth.hdl import Fragment

__all__ = ["split_comb", "simulation_fragment"]


def _drivers(fragment, table):
    """``table``: id(signal) -> (id of the fragment that drives it, domain), for every fragment below."""
    for domain, statements in fragment.statements.items():
        for statement in statements:
            for signal in statement._lhs_signals():
                table[id(signal)] = id(fragment), domain
    for port in getattr(fragment, "_read_ports", ()):             # memory read data
        table[id(port._data)] = id(fragment), "memory"
    for subfragment, _name, _src_loc in fragment.subfragments:
        _drivers(subfragment, table)
    return table


def _groups(statements, drivers):
    """The statements in groups: those that assign a common signal together (in their order), and those
    whose inputs come from the same driving fragments together (they would wake together anyway)."""
    group_of = {}           # key (id of an assigned signal, or a set of drivers) -> group number
    groups = []             # lists of (position, statement); None once merged into another
    for position, statement in enumerate(statements):
        keys = [id(signal) for signal in statement._lhs_signals()]
        # what a statement reads: right-hand sides, conditions, dynamic indices
        keys.append(frozenset(drivers.get(id(signal), "input") for signal in statement._rhs_signals()))
        found = sorted({group_of[key] for key in keys if key in group_of})
        if found:
            number = found[0]
            for other in found[1:]:
                groups[number] += groups[other]
                groups[other] = None
                for key, owner in group_of.items():
                    if owner == other:
                        group_of[key] = number
        else:
            number = len(groups)
            groups.append([])
        groups[number].append((position, statement))
        for key in keys:
            group_of[key] = number
    return [[statement for _position, statement in sorted(group, key=lambda entry: entry[0])]
            for group in groups if group]


def split_comb(fragment, drivers=None):
    """Move the comb statements of ``fragment`` and of every fragment below into child fragments, one per
    group (see the module docstring); returns ``fragment``."""
    if drivers is None:
        drivers = _drivers(fragment, {})
    for subfragment, _name, _src_loc in list(fragment.subfragments):
        split_comb(subfragment, drivers)
    if type(fragment) is not Fragment or "comb" not in fragment.statements:
        return fragment                                           # memories and instances stay whole
    groups = _groups(list(fragment.statements["comb"]), drivers)
    if len(groups) > 1:
        del fragment.statements["comb"]
        for group in groups:
            child = Fragment()
            child.add_statements("comb", *group)
            fragment.add_subfragment(child)
    return fragment


def simulation_fragment(elaboratable):
    """``elaboratable`` elaborated, its comb statements split for pysim: pass it to ``Simulator``."""
    return split_comb(Fragment.get(elaboratable, platform=None))
