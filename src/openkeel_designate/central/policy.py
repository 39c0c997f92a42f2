"""Policy checks with oslo.policy and Designate's default rules.

A denial raises ``Forbidden`` without a message, which the API renders as Designate does:
``{"code": 403, "type": "forbidden", "request_id": ...}``.
"""

from __future__ import annotations

import time
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from oslo_config import cfg
from oslo_policy import _checks, policy

from openkeel_designate.central.policy_rules import DEFAULT_RULES
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext


# oslo.policy looks for the policy file (a stat per search directory) on every ``enforce``; a
# decision depends only on the rule, the target and the caller's credentials, so decisions are
# kept, and the file is looked at (``load_rules``) at most once per ``RELOAD_CHECK_S``. A changed
# file replaces the enforcer's rules object, which empties the kept decisions.
RELOAD_CHECK_S = 1.0
MAX_DECISIONS = 4096


def _frozen(value: Any) -> Any:
    """A hashable form of a target or credentials value (lists and dicts, recursively)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_frozen(v) for v in value)
    return value


class _DeferredCheck:
    """A rule-check plugin of oslo.policy, imported when a rule first names its kind."""

    def __init__(self, entry_point: EntryPoint):
        self._entry_point = entry_point

    def __call__(self, kind: str, match: str) -> _checks.BaseCheck:
        return self._entry_point.load()(kind, match)


def _defer_rule_check_plugins() -> None:
    """oslo.policy imports every rule-check plugin when it parses its first rule; its ``http:``
    and ``https:`` checks bring ``requests`` (with urllib3 and charset_normalizer: about
    4 MB resident), which Designate's rules never use.  The plugins are listed here without
    being imported, in the table oslo.policy would fill, and each is imported on first use (an
    operator's policy file may name one)."""
    if _checks.extension_checks is None:
        _checks.extension_checks = {
            ep.name: _DeferredCheck(ep) for ep in entry_points(group="oslo.policy.rule_checks")}


class Policy:
    """An enforcer loaded with the defaults plus any ``policy.yaml`` the operator configured."""

    def __init__(self, conf: cfg.ConfigOpts):
        _defer_rule_check_plugins()
        self._enforcer = policy.Enforcer(conf, use_conf=True)
        self._enforcer.register_defaults(
            [policy.RuleDefault(name, check) for name, check in DEFAULT_RULES.items()]
        )
        self._enforcer.load_rules()
        self._rules_seen = self._enforcer.rules
        self._next_check = time.monotonic() + RELOAD_CHECK_S
        self._decisions: dict[tuple, bool] = {}

    def check(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> None:
        """Raise ``Forbidden`` unless ``ctx`` may do ``rule`` on ``target``."""
        if not self.allows(rule, ctx, target):
            raise errors.Forbidden()

    def allows(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> bool:
        full_target = {"project_id": ctx.project_id, "tenant_id": ctx.project_id}
        if target:
            full_target.update(target)
        creds = ctx.credentials()
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + RELOAD_CHECK_S
            self._enforcer.load_rules()
            if self._enforcer.rules is not self._rules_seen:
                self._rules_seen = self._enforcer.rules
                self._decisions.clear()
        try:
            key = (rule, _frozen(full_target), _frozen(creds))
            hash(key)
        except TypeError:  # a value that cannot be kept: decide every time
            return bool(self._enforcer.enforce(rule, full_target, creds))
        decision = self._decisions.get(key)
        if decision is None:
            decision = bool(self._enforcer.enforce(rule, full_target, creds))
            if len(self._decisions) >= MAX_DECISIONS:
                self._decisions.clear()
            self._decisions[key] = decision
        return decision
