"""What imports and exports share: one ``zone_tasks`` table, read, listed and deleted alike.

Each kind only differs by its task type, its policy names (``get_zone_import``,
``find_zone_exports`` …) and its not-found error.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.notifications import emit
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ListResult, ZoneTaskView
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.models import ZoneTask


@dataclass(frozen=True)
class TaskKind:
    task_type: str
    rule: str                          # policy suffix: get_<rule>, find_<rule>s, delete_<rule>
    not_found: type[errors.NotFound]
    label: str                         # as in "Could not find ZoneImport"


IMPORTS = TaskKind(task_store.IMPORT, "zone_import", errors.ZoneImportNotFound, "ZoneImport")
EXPORTS = TaskKind(task_store.EXPORT, "zone_export", errors.ZoneExportNotFound, "ZoneExport")


async def visible(session: AsyncSession, ctx: RequestContext, kind: TaskKind,
                  task_id: str) -> ZoneTask:
    task = await task_store.get(session, task_id, kind.task_type, project_id=ctx.project_id,
                                all_tenants=ctx.all_tenants)
    if task is None:
        raise kind.not_found(f"Could not find {kind.label}")
    return task


async def get(svc: Services, ctx: RequestContext, kind: TaskKind,
              task_id: str) -> ZoneTaskView:
    svc.policy.check(f"get_{kind.rule}", ctx, {"project_id": ctx.project_id})
    async with svc.db.read() as session:
        return ZoneTaskView.of(await visible(session, ctx, kind, task_id))


async def find(svc: Services, ctx: RequestContext, kind: TaskKind, page: Page) -> ListResult:
    svc.policy.check(f"find_{kind.rule}s", ctx, {"project_id": ctx.project_id})
    async with svc.db.read() as session:
        rows, total = await task_store.find(session, page, kind.task_type,
                                            project_id=ctx.project_id, all_tenants=ctx.all_tenants)
    return ListResult([ZoneTaskView.of(row) for row in rows], total)


async def delete(svc: Services, ctx: RequestContext, kind: TaskKind,
                 task_id: str) -> ZoneTaskView:
    # Designate checks the rule against the caller's own project before the lookup, so a
    # reader is refused (403) even for a task that does not exist (any more).
    svc.policy.check(f"delete_{kind.rule}", ctx, {"project_id": ctx.project_id})

    async def work(session: AsyncSession) -> ZoneTaskView:
        task = await visible(session, ctx, kind, task_id)
        await task_store.remove(session, task.id)
        return ZoneTaskView.of(task)

    task = await svc.db.transaction(work)
    emit(svc, task, f"dns.{kind.rule}.delete")
    return task
