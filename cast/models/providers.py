"""Which service carries cast's requests to Claude, and what a model is called there.

cast speaks the Messages API through the SDK's own client for each platform, so the request body
it builds is the same everywhere and only the transport differs:

- `anthropic`: `anthropic.Anthropic`; `ANTHROPIC_BASE_URL` points it at any Anthropic-compatible
  gateway (the Models API is used for whatever part of it the gateway serves, the built-in table
  for the rest: `lookup.py`).
- `bedrock`: `anthropic.AnthropicBedrock` (extra `cast-agent[bedrock]`: boto3). InvokeModel on
  `bedrock-runtime.{region}.amazonaws.com/model/{id}/invoke-with-response-stream`, signed with
  SigV4 from the standard AWS credential chain (environment, `AWS_PROFILE`, SSO, instance role) or
  a Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`); region from `AWS_REGION`, `AWS_DEFAULT_REGION` or
  the profile. Replies arrive as AWS event-stream frames, which the SDK decodes with botocore.
- `vertex`: `anthropic.AnthropicVertex` (extra `cast-agent[vertex]`: google-auth). SSE from
  `{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/anthropic/
  models/{id}:streamRawPredict`, with a Bearer token from Application Default Credentials
  (`GOOGLE_APPLICATION_CREDENTIALS`, `gcloud auth application-default login`, the metadata server);
  region from `CLOUD_ML_REGION`, project from `ANTHROPIC_VERTEX_PROJECT_ID` or the credentials.

Model facts (limits, thinking, efforts) on Bedrock and Vertex come from cast's built-in table, never
from the first-party Models API: lifecycle dates on partner platforms are the partner's and can
differ, and neither platform serves `/v1/models` to the SDK. A model is named by cast's id
(`claude-sonnet-5-5`), mapped through `PLATFORM_IDS`, or by the platform's own id
(`us.anthropic.claude-sonnet-5-5`, an inference-profile ARN, `claude-haiku-4-5@20251001`), sent
as given and mapped back to cast's id for its facts and prices.

Cheap to import: the SDK, boto3 and google-auth load when a client is built.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from cast.models.base import ModelError

PROVIDERS = ("anthropic", "bedrock", "vertex")
NO_KEY = "ANTHROPIC_API_KEY is not set: export it, or use --model script:PATH for an offline scripted model"

# cast's model id -> (Bedrock base model id, Vertex AI model id). Sources: the platform pages
# https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy (model table:
# ARN-versioned ids of Opus 4.6 and earlier; Opus 4.7 "does not have an ARN-versioned model ID"),
# https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai (`claude-…@date` for
# dated snapshots, the bare name for later models), and for the 5.x line, which the pages list in
# the same `anthropic.claude-<name>` / `claude-<name>` pattern, the provider releases that added them
# (vercel/ai @ai-sdk/amazon-bedrock and @ai-sdk/google-vertex: "anthropic.claude-sonnet-5-5 and
# us.anthropic.claude-sonnet-5-5", "anthropic.claude-fable-5-2 and us.anthropic.claude-fable-5-2").
PLATFORM_IDS: dict[str, tuple[str, str]] = {
    "claude-fable-5-2": ("anthropic.claude-fable-5-2", "claude-fable-5-2"),
    "claude-mythos-5-2": ("anthropic.claude-mythos-5-2", "claude-mythos-5-2"),
    "claude-opus-5-5": ("anthropic.claude-opus-5-5", "claude-opus-5-5"),
    "claude-sonnet-5-5": ("anthropic.claude-sonnet-5-5", "claude-sonnet-5-5"),
    "claude-haiku-5-5": ("anthropic.claude-haiku-5-5", "claude-haiku-5-5"),
    "claude-fable-5-1": ("anthropic.claude-fable-5-1", "claude-fable-5-1"),
    "claude-mythos-5-1": ("anthropic.claude-mythos-5-1", "claude-mythos-5-1"),
    "claude-fable-5": ("anthropic.claude-fable-5", "claude-fable-5"),
    "claude-mythos-5": ("anthropic.claude-mythos-5", "claude-mythos-5"),
    "claude-opus-5": ("anthropic.claude-opus-5", "claude-opus-5"),
    "claude-sonnet-5": ("anthropic.claude-sonnet-5", "claude-sonnet-5"),
    "claude-opus-4-8": ("anthropic.claude-opus-4-8", "claude-opus-4-8"),
    "claude-opus-4-7": ("anthropic.claude-opus-4-7", "claude-opus-4-7"),
    "claude-opus-4-6": ("anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
    "claude-sonnet-4-6": ("anthropic.claude-sonnet-4-6", "claude-sonnet-4-6"),
    "claude-haiku-4-5": ("anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5@20251001"),
    "claude-opus-4-5": ("anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5@20251101"),
}

# Bedrock models in the legacy table: they don't take API version 2026-10-21 on Bedrock ("requests
# to them that send it may return a 400"; the boto3 examples, which send `anthropic_version` in the
# body, are unaffected), so their requests name the Bedrock version instead (same page, Warning).
LEGACY_BEDROCK = frozenset({"claude-opus-4-6", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-5"})
BEDROCK_LEGACY_VERSION = "bedrock-2023-05-31"

# Bedrock's mid-stream exception frames that a new attempt may get past (the ResponseStream members of
# InvokeModelWithResponseStream: https://docs.aws.amazon.com/bedrock/latest/APIReference/
# API_runtime_InvokeModelWithResponseStream.html; validationException is the request's fault). The SDK
# surfaces one as a stream `error` event whose type is the frame's exception type.
BEDROCK_RETRY_TYPES = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "throttlingException",
        "modelTimeoutException",
        "serviceUnavailableException",
    }
)

# Cross-region inference profiles: the geography prefix of a Bedrock id (same page, "Global vs
# regional endpoints": global, us, eu, jp, apac; us-gov for GovCloud, au for Australia).
GEOGRAPHIES = ("global", "us-gov", "us", "eu", "jp", "apac", "au")
_GEO = re.compile("^(?:" + "|".join(re.escape(g) for g in GEOGRAPHIES) + r")\.")
_SUFFIX = re.compile(r"(?:-\d{8})?(?:-v\d+(?::\d+)?)?$")


def geography(region: str) -> str:
    """The inference-profile geography for an AWS region (`us-east-1` -> `us`)."""
    if region.startswith("us-gov-"):
        return "us-gov"
    if region.startswith(("us-", "ca-")):
        return "us"
    if region.startswith("eu-"):
        return "eu"
    if region == "ap-northeast-1" or region == "ap-northeast-3":
        return "jp"
    if region.startswith("ap-southeast-2") or region.startswith("ap-southeast-4"):
        return "au"
    if region.startswith("ap-"):
        return "apac"
    return "global"


def canonical(model: str) -> str:
    """cast's id for a model named the way a platform names it (unchanged when it is cast's id)."""
    name = model.strip()
    if name.startswith("arn:"):
        name = name.rsplit("/", 1)[-1]
    name = _GEO.sub("", name).removeprefix("anthropic.")
    for ours, (bedrock, vertex) in PLATFORM_IDS.items():
        if name in (ours, bedrock.removeprefix("anthropic."), vertex):
            return ours
    return _SUFFIX.sub("", name.split("@", 1)[0]) or name


def is_native(provider: str, model: str) -> bool:
    """Whether `model` is already the platform's own id (sent as given)."""
    if provider == "bedrock":
        return model.startswith("arn:") or "anthropic." in model
    if provider == "vertex":
        return "@" in model
    return True


@dataclass
class Provider:
    """The platform a run talks to, with where it is (region, project) and how a model is named
    there. `pins`: ids the user gave in the platform's own form, by cast's id."""

    name: str = "anthropic"
    region: str = ""
    project: str = ""
    pins: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Any) -> Provider:
        name = (getattr(config, "provider", "") or os.environ.get("CAST_PROVIDER") or "anthropic").strip().lower()
        if name not in PROVIDERS:
            raise ModelError(
                f"unknown provider '{name}': use one of {', '.join(PROVIDERS)} (provider in config.toml or CAST_PROVIDER)",
                exit_code=2,
            )
        if name == "bedrock":
            return cls(name, _aws_region())
        if name == "vertex":
            project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID") or os.environ.get("GOOGLE_CLOUD_PROJECT") or ""
            return cls(name, os.environ.get("CLOUD_ML_REGION", ""), project)
        return cls(name)

    # -- model ids ---------------------------------------------------------------------------
    def model_id(self, given: str) -> str:
        """cast's id for the model the user named; remembers a platform id to send as given."""
        ours = canonical(given) if self.name != "anthropic" else given
        if self.name != "anthropic" and is_native(self.name, given):
            self.pins[ours] = given
        return ours

    def wire_id(self, model: str) -> str:
        """What the platform is sent for cast's `model`."""
        if self.name == "anthropic":
            return model
        if model in self.pins:
            return self.pins[model]
        if is_native(self.name, model):
            return model
        bedrock, vertex = PLATFORM_IDS.get(model, (f"anthropic.{model}", model))
        if self.name == "vertex":
            return vertex
        return f"{geography(self.region)}.{bedrock}" if self.region else bedrock

    # -- what it needs ------------------------------------------------------------------------
    def check(self) -> None:
        """A `ModelError` (exit 2) for what would fail every request: a missing extra, region or
        credentials. Nothing here uses the network for credentials the environment holds."""
        if self.name == "anthropic":
            if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
                raise ModelError(NO_KEY, exit_code=2)
            return
        _require(self.name)
        if not self.region:
            var = (
                "AWS_REGION (or AWS_DEFAULT_REGION, or a region in your AWS profile)"
                if self.name == "bedrock"
                else "CLOUD_ML_REGION"
            )
            raise ModelError(f"provider {self.name} needs a region: set {var}", exit_code=2)
        if self.name == "bedrock" and not os.environ.get("AWS_BEARER_TOKEN_BEDROCK") and _aws_credentials() is None:
            raise ModelError(
                "provider bedrock found no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                "AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)",
                exit_code=2,
            )

    def auth_hint(self) -> str:
        return {
            "bedrock": "check your AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_BEARER_TOKEN_BEDROCK) and Bedrock model access",
            "vertex": "check your Google Cloud credentials (gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS) and project",
        }.get(self.name, "check ANTHROPIC_API_KEY")

    # -- the client ---------------------------------------------------------------------------
    def client(self, options: dict[str, Any]) -> Any:
        """The SDK client for this platform; `options` are the common ones (timeout, retries,
        and for `anthropic` an explicit key or base URL). The first-party API's is cast's direct
        client (`direct.py`: the same wire format without the SDK's import time)."""
        if self.name == "anthropic":
            from cast.models.direct import Client  # deferred: keeps httpx2 off the REPL's first prompt

            return Client(**options)
        import anthropic

        common = {k: v for k, v in options.items() if k in ("timeout", "max_retries", "base_url")}
        if self.name == "bedrock":
            return _guarded(_bedrock_class(anthropic), self)(aws_region=self.region, **common)
        credentials, project = _google_credentials(self.project)
        return _guarded(anthropic.AnthropicVertex, self)(
            region=self.region, project_id=project, credentials=credentials, **common
        )

    def lookup_client(self) -> Any:
        """The Models API client factory for `lookup`: the first-party API's, or one that never
        asks (the built-in table decides) on a partner platform."""
        if self.name == "anthropic":
            from cast.models.lookup import default_client  # deferred: keeps cast.models.lookup off the model registry's import

            return default_client
        return _no_client

    def describe(self) -> str:
        """For `cast doctor`: the platform, where, and how it is reached."""
        if self.name == "bedrock":
            key = (
                "a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)"
                if os.environ.get("AWS_BEARER_TOKEN_BEDROCK")
                else "AWS credentials (SigV4)"
            )
            return f"Amazon Bedrock, region {self.region or 'not set'}, {key}"
        if self.name == "vertex":
            where = f"Google Vertex AI, region {self.region or 'not set'}, project {self.project or 'from the credentials'}"
            return f"{where}, credentials {_adc_source()}"
        base = os.environ.get("ANTHROPIC_BASE_URL")
        return f"Anthropic-compatible gateway at {base}" if base else "the Anthropic API"


def _adc_source() -> str:
    """Where Application Default Credentials will come from, read without asking anyone."""
    named = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if named:
        return f"from {named}" + ("" if os.path.isfile(named) else " (no such file)")
    gcloud = os.environ.get("CLOUDSDK_CONFIG") or os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    adc = os.path.join(gcloud, "application_default_credentials.json")
    if os.path.isfile(adc):
        return f"from {adc} (gcloud auth application-default login)"
    return "from the metadata server if this runs on Google Cloud (no GOOGLE_APPLICATION_CREDENTIALS, no gcloud login)"


def _no_client() -> None:
    return None


def _require(name: str) -> None:
    module = "boto3" if name == "bedrock" else "google.auth"
    try:
        __import__(module)
    except ImportError:
        raise ModelError(f"provider {name} needs {module}: pip install 'cast-agent[{name}]'", exit_code=2) from None


def _aws_region() -> str:
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        return region
    try:
        import boto3

        return boto3.Session(profile_name=os.environ.get("AWS_PROFILE") or None).region_name or ""
    except Exception:  # noqa: BLE001 — no boto3 or a broken profile: `check` says what is missing
        return ""


def _aws_credentials() -> Any:
    import boto3

    try:
        return boto3.Session(profile_name=os.environ.get("AWS_PROFILE") or None).get_credentials()
    except Exception:  # noqa: BLE001 — a broken profile is as good as none here
        return None


def _guarded(base: Any, provider: Provider) -> Any:
    """`base` whose request signing fails the way cast's other failures do. The platform clients
    sign each request (SigV4, a Google token) before sending it, outside the SDK's error types: an
    auth library that can't reach its token service is a connection error (retried, then
    reported), and credentials that can't be used are a configuration error (exit 2), not a
    traceback."""
    import anthropic

    class Guarded(base):  # type: ignore[misc]  # the SDK's client: Any to mypy, imported only when used
        def _prepare_request(self, request: Any) -> None:
            try:
                super()._prepare_request(request)
            except (ModelError, anthropic.AnthropicError):
                raise
            except Exception as exc:  # noqa: BLE001 — boto3's and google-auth's errors, whatever their type
                if type(exc).__name__ in ("TransportError", "EndpointConnectionError", "ConnectTimeoutError"):
                    raise anthropic.APIConnectionError(request=request) from exc
                raise ModelError(
                    f"provider {provider.name} could not sign the request ({type(exc).__name__}: {exc}); {provider.auth_hint()}",
                    exit_code=2,
                ) from None

    return Guarded


def _bedrock_class(anthropic: Any) -> Any:
    """`AnthropicBedrock`, naming the Bedrock API version in the body of requests to the models
    that don't take the SDK's (`LEGACY_BEDROCK`)."""

    class Bedrock(anthropic.AnthropicBedrock):  # type: ignore[misc]  # the SDK's client: Any to mypy
        def _prepare_options(self, options: Any) -> Any:
            body = options.json_data
            if isinstance(body, dict) and canonical(str(body.get("model", ""))) in LEGACY_BEDROCK:
                body.setdefault("anthropic_version", BEDROCK_LEGACY_VERSION)
            return super()._prepare_options(options)

    return Bedrock


def _google_credentials(project: str) -> tuple[Any, str]:
    """Application Default Credentials with the cloud-platform scope, loaded now so a missing
    file or login is a configuration error, not a traceback at the first request. The token
    itself is fetched (and refreshed) by the SDK."""
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        credentials, found = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    except DefaultCredentialsError as exc:
        raise ModelError(
            f"provider vertex found no Google Cloud credentials ({exc}): run `gcloud auth application-default login` "
            "or set GOOGLE_APPLICATION_CREDENTIALS",
            exit_code=2,
        ) from None
    if not (project or found):
        raise ModelError("provider vertex needs a project: set ANTHROPIC_VERTEX_PROJECT_ID", exit_code=2)
    return credentials, project or str(found)
