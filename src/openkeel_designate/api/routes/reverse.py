"""``/v2/reverse/floatingips``: needs Neutron, which this configuration does not reach.

Without ``[network_api:neutron] endpoints`` and without a Keystone service catalog, Designate
answers 500 ``configuration_error``; so do we until the Neutron integration lands.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from openkeel_designate.api.context import build_context
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

router = APIRouter()


def _no_neutron() -> errors.ConfigurationError:
    return errors.ConfigurationError("No service_catalog and no configured endpoints")


@router.get("/v2/reverse/floatingips")
async def list_floatingips(request: Request,
                           ctx: RequestContext = Depends(build_context)) -> Response:
    raise _no_neutron()


@router.get("/v2/reverse/floatingips/{key}")
async def get_floatingip(key: str, request: Request,
                         ctx: RequestContext = Depends(build_context)) -> Response:
    raise _no_neutron()


@router.patch("/v2/reverse/floatingips/{key}")
async def set_floatingip(key: str, request: Request,
                         ctx: RequestContext = Depends(build_context)) -> Response:
    raise _no_neutron()
