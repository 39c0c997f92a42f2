"""One error hierarchy for the whole service.

Every error knows the HTTP status and the Designate ``type`` string it is rendered with, so the API
renders all of them in one place (``api/errors.py``) exactly as Designate's fault wrapper does:
``{"code", "type", "message"?, "errors"?, "request_id"}``.  ``message`` is only present when the
error was raised with one (policy denials carry none), which is why it defaults to ``None``.
"""

from __future__ import annotations

from typing import Any


class DesignateError(Exception):
    """Base of every error the API renders as Designate JSON."""

    code: int = 500
    type: str = "unknown"
    #: rendered with ``message`` even when it carries ``errors``: Designate's v2 validation
    #: answers drop it (kept byte-identical), our extensions keep it
    message_with_errors: bool = False

    def __init__(self, message: str | None = None, errors: list[dict[str, Any]] | None = None):
        super().__init__(message or self.type)
        self.message = message
        self.errors = errors


# --- 400 ---------------------------------------------------------------------------------------
class BadRequest(DesignateError):
    code, type = 400, "bad_request"


class EmptyRequestBody(BadRequest):
    type = "empty_request_body"


class InvalidJson(BadRequest):
    type = "invalid_json"


class InvalidLimit(BadRequest):
    type = "invalid_limit"


class InvalidMarker(BadRequest):
    type = "invalid_marker"


class InvalidOperation(BadRequest):
    type = "invalid_operation"


class InvalidProject(BadRequest):
    type = "invalid_project"


class InvalidSortDir(BadRequest):
    type = "invalid_sort_dir"


class InvalidSortKey(BadRequest):
    type = "invalid_sort_key"


class InvalidTsigKey(BadRequest):
    type = "invalid_tsigkey"


class InvalidUUID(BadRequest):
    type = "invalid_uuid"


class LastServerDeleteNotAllowed(BadRequest):
    type = "last_server_delete_not_allowed"


class MarkerNotFound(BadRequest):
    type = "marker_not_found"


class ValueErrorBadRequest(BadRequest):
    type = "value_error"


class InvalidObject(DesignateError):
    """A body that does not fit the resource. With ``errors`` it is rendered double-nested."""

    code, type = 400, "invalid_object"


class InvalidChanges(InvalidObject):
    """An invalid change batch (extension): every problem in ``errors``, and the message of
    Designate's schema failures, so a client reading either field understands."""

    message_with_errors = True

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("Provided object does not match schema", errors=errors)


class InvalidDnssecSetting(InvalidObject):
    """An invalid ``PUT /v2/zones/{id}/dnssec`` body (extension): every problem in ``errors``."""

    message_with_errors = True

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("Provided object does not match schema", errors=errors)


class InvalidRecordSetLocation(DesignateError):
    code, type = 400, "invalid_recordset_location"


class InvalidRecordSetName(DesignateError):
    code, type = 400, "invalid_recordset_name"


class InvalidTTL(DesignateError):
    code, type = 400, "invalid_ttl"


class InvalidZoneName(DesignateError):
    code, type = 400, "invalid_zone_name"


class InvalidZoneTransfer(DesignateError):
    code, type = 400, "invalid_zone_transfer_request"


class SharedZoneHasRecordSets(DesignateError):
    code, type = 400, "shared_zone_has_recordsets"


class SharedZoneHasSubZone(DesignateError):
    code, type = 400, "shared_zone_has_sub_zone"


class ZoneHasSubZone(DesignateError):
    code, type = 400, "zone_has_sub_zone"


class ZoneShared(DesignateError):
    code, type = 400, "zone_is_shared"


# --- 401 / 403 ---------------------------------------------------------------------------------
class MissingProjectID(BadRequest):
    code, type = 401, "missing_project_id"


class Forbidden(DesignateError):
    code, type = 403, "forbidden"


class IllegalChildZone(Forbidden):
    type = "illegal_child"


class IllegalParentZone(Forbidden):
    type = "illegal_parent"


class IncorrectZoneTransferKey(Forbidden):
    type = "invalid_key"


# --- 404 ---------------------------------------------------------------------------------------
class NotFound(DesignateError):
    code, type = 404, "not_found"


class ZoneNotFound(NotFound):
    type = "zone_not_found"


class RecordSetNotFound(NotFound):
    type = "recordset_not_found"


class PoolNotFound(NotFound):
    type = "pool_not_found"


class NoValidPoolFound(NotFound):
    type = "no_valid_pool_found"


class ServiceStatusNotFound(NotFound):
    type = "service_status_not_found"


class TldNotFound(NotFound):
    type = "tld_not_found"


class TsigKeyNotFound(NotFound):
    type = "tsigkey_not_found"


class BlacklistNotFound(NotFound):
    type = "blacklist_not_found"


class ZoneImportNotFound(NotFound):
    type = "zone_import_not_found"


class ZoneExportNotFound(NotFound):
    type = "zone_export_not_found"


class ZoneTransferRequestNotFound(NotFound):
    type = "zone_transfer_request_not_found"


class ZoneTransferAcceptNotFound(NotFound):
    type = "zone_transfer_accept_not_found"


class SharedZoneNotFound(NotFound):
    type = "shared_zone_not_found"


class ReportNotFound(NotFound):
    type = "report_not_found"


class QuotaNotFound(NotFound):
    type = "quota_not_found"


# --- 405 / 406 / 409 / 412 / 413 / 415 ---------------------------------------------------------------
class MethodNotAllowed(DesignateError):
    code, type = 405, "method_not_allowed"


class UnsupportedAccept(BadRequest):
    code, type = 406, "unsupported_accept"


class Duplicate(DesignateError):
    code, type = 409, "duplicate"


class PreconditionFailed(DesignateError):
    """``If-Match`` / ``If-None-Match`` not met (extension: Designate has no conditional writes)."""

    code, type = 412, "precondition_failed"


class DuplicateZone(Duplicate):
    type = "duplicate_zone"


class DuplicateRecordSet(Duplicate):
    type = "duplicate_recordset"


class DuplicateRecord(Duplicate):
    type = "duplicate_record"


class DuplicatePool(Duplicate):
    type = "duplicate_pool"


class DuplicateTld(Duplicate):
    type = "duplicate_tld"


class DuplicateTsigKey(Duplicate):
    type = "duplicate_tsigkey"


class DuplicateBlacklist(Duplicate):
    type = "duplicate_blacklist"


class DuplicateSharedZone(Duplicate):
    type = "duplicate_shared_zone"


class DuplicateZoneTransferRequest(Duplicate):
    type = "duplicate_zone_transfer_request"


class DuplicateServiceStatus(Duplicate):
    type = "duplicate_service_status"


class DuplicateZoneAttribute(Duplicate):
    type = "duplicate_zone_attribute"


class OverQuota(DesignateError):
    code, type = 413, "over_quota"


class UnsupportedContentType(BadRequest):
    code, type = 415, "unsupported_content_type"


# --- 5xx ---------------------------------------------------------------------------------------
class ConfigurationError(DesignateError):
    code, type = 500, "configuration_error"


class MultiplePoolsFound(ConfigurationError):
    type = "multiple_pools_found"


class NoServersConfigured(ConfigurationError):
    type = "no_servers_configured"


class QuotaResourceUnknown(DesignateError):
    code, type = 500, "quota_resource_unknown"


class ServiceUnavailable(DesignateError):
    """The database cannot be reached; the client should retry (Retry-After is set)."""

    code, type = 503, "service_unavailable"


class CommunicationFailure(DesignateError):
    code, type = 504, "communication_failure"


class KeystoneCommunicationFailure(CommunicationFailure):
    type = "keystone_communication_failure"


class NeutronCommunicationFailure(CommunicationFailure):
    type = "neutron_communication_failure"


def required_error(field: str) -> dict[str, Any]:
    """The structured entry Designate emits for a missing non-nullable field.

    The literal ``records, 0`` prefix is Designate's, for every object type.
    """
    return {
        "path": ["records", 0, field],
        "message": f"'{field}' is a required property",
        "validator": "required",
        "validator_value": [field],
    }
