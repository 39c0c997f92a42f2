"""The registry (``rrtypes/__init__.py``): discovered from the package, ordered as Designate,
and the type-wide rules the recordset service asks it for."""

from pathlib import Path

import pytest

from openkeel_designate import config
from openkeel_designate.domain import rrtypes
from openkeel_designate.domain.rrtypes.base import RecordType

# records.md §1: the default of [DEFAULT] supported_record_type in Designate 23.0.0.
DESIGNATE_ORDER = [
    "A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA", "NAPTR",
    "CAA", "CERT", "HTTPS", "SVCB", "TLSA",
]
PACKAGE = Path(rrtypes.__file__).parent
TESTS = Path(__file__).parent


def _type_modules() -> set[str]:
    return {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "base"}


def test_every_module_of_the_package_is_registered():
    registered = {type(t).__module__.rsplit(".", 1)[1] for t in rrtypes.REGISTRY.values()}
    assert registered == _type_modules()


def test_every_type_module_has_its_test_file():
    assert {f"test_{module}.py" for module in _type_modules()} <= {p.name for p in TESTS.iterdir()}


def test_default_order_is_designates():
    assert rrtypes.default_supported() == DESIGNATE_ORDER
    assert list(rrtypes.REGISTRY) == [*DESIGNATE_ORDER, "DS"]  # DS: opt-in, ranked last


def test_an_opt_in_type_is_enabled_only_when_listed():
    assert rrtypes.enabled("DS", DESIGNATE_ORDER) is None
    assert rrtypes.enabled("DS", [*DESIGNATE_ORDER, "DS"]) is rrtypes.get("DS")
    assert rrtypes.enabled("MX", []) is rrtypes.get("MX")  # listing is central's check
    assert rrtypes.enabled("BOGUS", ["BOGUS"]) is None
    assert not rrtypes.child_cuts_enabled(DESIGNATE_ORDER)
    assert rrtypes.child_cuts_enabled(["A", "NS", "DS"])


def test_config_default_comes_from_the_registry():
    assert config.load([]).supported_record_type == DESIGNATE_ORDER


def test_ranks_are_distinct():
    ranks = [t.rank for t in rrtypes.REGISTRY.values()]
    assert len(set(ranks)) == len(ranks)


def test_get_knows_registered_names_only():
    assert rrtypes.get("MX") is rrtypes.REGISTRY["MX"]
    assert rrtypes.get("mx") is None
    assert rrtypes.get("ds") is None
    assert rrtypes.get("DNSKEY") is None


def test_rules_of_a_type_without_module_are_the_defaults():
    unlisted = rrtypes.rules("DNSKEY")
    assert type(unlisted) is RecordType
    assert unlisted.api_writable and not unlisted.exclusive and not unlisted.apex_managed
    assert unlisted.name_error("anything.example.") is None
    assert rrtypes.rules("SOA") is rrtypes.get("SOA")


@pytest.mark.parametrize(
    ("new", "present", "alone"),
    [
        ("A", ["CNAME"], "CNAME"),
        ("CNAME", ["A"], "CNAME"),
        ("CNAME", ["CNAME"], "CNAME"),
        ("MX", ["A", "CNAME"], "CNAME"),
        ("CNAME", [], None),
        ("A", [], None),
        ("A", ["AAAA", "MX", "TXT"], None),
        ("A", ["DS"], None),
    ],
)
def test_exclusive_among(new, present, alone):
    assert rrtypes.exclusive_among(new, present) == alone


def test_only_cname_is_exclusive_only_soa_is_not_writable_only_ns_keeps_the_apex():
    types = rrtypes.REGISTRY.values()
    assert [t.name for t in types if t.exclusive] == ["CNAME"]
    assert [t.name for t in types if not t.api_writable] == ["SOA"]
    assert [t.name for t in types if t.apex_managed] == ["NS"]
    assert {t.name: t.max_records for t in types if t.max_records is not None} == {"CNAME": 1}


def test_only_ds_is_opt_in_and_kept_to_delegations_ns_and_ds_make_a_cut():
    types = rrtypes.REGISTRY.values()
    assert [t.name for t in types if t.opt_in] == ["DS"]
    assert [t.name for t in types if t.delegation_only] == ["DS"]
    assert [t.name for t in types if t.zone_cut] == ["NS", "DS"]
