"""cast on Amazon Bedrock, Google Vertex AI and an Anthropic-compatible gateway: a real plan run,
in-process through cast's run machinery and the SDK's own platform clients, against HTTP fakes of
each platform's endpoint (tests/fake_bedrock.py, tests/fake_vertex.py), with credentials given
the way each platform's standard chain reads them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fake_bedrock import FakeBedrock
from fake_vertex import FakeVertex
from fakeapi import Failure, FakeAPI, error_body, text, tool_use

from cast import runs
from cast.agent import events as ev
from cast.models.base import ModelError
from cast.models.providers import Provider

KEY, SECRET = "AKIDCASTTEST", "cast-test-secret-key"
PLAN = "# Plan\n\n- [ ] Rename the helper; verify with `pytest -q`\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "util.py").write_text("def helper():\n    return 1\n")
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    for var in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_DEFAULT_REGION", "GOOGLE_CLOUD_PROJECT", "CAST_PROVIDER", "CAST_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))
    from anthropic.lib.aws._auth import _get_session

    _get_session.cache_clear()  # the SDK keeps one boto3 session per argument set
    return root


@pytest.fixture
def bedrock(repo, monkeypatch):
    fake = FakeBedrock(secrets={KEY: SECRET}).start()
    monkeypatch.setenv("CAST_PROVIDER", "bedrock")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", fake.url)
    yield fake
    fake.stop()


@pytest.fixture
def vertex(repo, monkeypatch, tmp_path):
    fake = FakeVertex().start()
    monkeypatch.setenv("CAST_PROVIDER", "vertex")
    monkeypatch.setenv("CLOUD_ML_REGION", fake.region)
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", fake.project)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(fake.write_credentials(tmp_path / "service-account.json")))
    monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", f"{fake.url}/v1")
    yield fake
    fake.stop()


def plan_session(api: FakeAPI, root: Path, model: str) -> tuple[runs.Run, ev.Stopped]:
    api.reply(text("Looking at the helper."), tool_use("toolu_1", "read_file", {"path": "util.py"}))
    api.reply(tool_use("toolu_2", "write_plan", {"name": "plan", "content": PLAN}))
    api.reply(text("The plan is written."))
    options = runs.Options(cwd=root, model=model)
    run = runs.plan_run("rename the helper", options)
    stop = run.turn("Plan renaming the helper.", lambda event: None)
    run.outcome()
    return run, stop


def test_a_plan_run_on_bedrock_is_signed_and_streams_aws_event_stream_frames(bedrock, repo):
    run, stop = plan_session(bedrock.api, repo, "claude-sonnet-5-5")
    assert stop.status == "done", stop
    assert run.plan_path is not None and run.plan_path.read_text().endswith(PLAN)
    assert run.agent.model.name == "claude-sonnet-5-5"  # cast's id: prices and facts
    assert bedrock.rejections() == []
    assert len(bedrock.calls) == 3
    for call in bedrock.calls:
        # eu-west-1 gets the EU cross-region inference profile
        assert call.path == "/model/eu.anthropic.claude-sonnet-5-5/invoke-with-response-stream"
        assert call.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={KEY}/")
        assert "/eu-west-1/bedrock/aws4_request" in call.headers["authorization"]
        assert "model" not in call.body and "stream" not in call.body
        assert call.body["anthropic_version"]


def test_a_legacy_bedrock_model_is_sent_the_bedrock_api_version(bedrock, repo):
    run, stop = plan_session(bedrock.api, repo, "us.anthropic.claude-haiku-4-5-20251001-v1:0")
    assert stop.status == "done", [c.error for c in bedrock.rejections()]
    assert run.agent.model.name == "claude-haiku-4-5"
    assert {c.path for c in bedrock.calls} == {"/model/us.anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream"}
    assert {c.body["anthropic_version"] for c in bedrock.calls} == {"bedrock-2023-05-31"}


def test_wrong_aws_credentials_stop_the_run_with_the_platform_s_words(bedrock, repo, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    bedrock.api.reply(text("never sent"))
    run = runs.plan_run("rename the helper", runs.Options(cwd=repo, model="claude-sonnet-5-5"))
    stop = run.turn("Plan it.", lambda event: None)
    assert stop.status != "done"
    assert [c.status for c in bedrock.calls] == [403]
    assert "signature" in bedrock.calls[0].error


def signed(url: str, body: dict, secret: str = SECRET) -> tuple[int, str]:
    """POST `body` to the fake, signed with SigV4 the way any AWS client signs it (not the SDK)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="POST", url=url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    SigV4Auth(Credentials(KEY, secret), "bedrock", "eu-west-1").add_auth(request)
    return _post(url, request.body, dict(request.headers.items()))


def _post(url: str, data: bytes, headers: dict[str, str]) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method="POST")) as reply:
            return reply.status, reply.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_bedrock_fake_rejects_what_bedrock_rejects(bedrock):
    url = f"{bedrock.url}/model/eu.anthropic.claude-sonnet-5-5/invoke-with-response-stream"
    good = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    assert signed(url, {**good, "model": "claude-sonnet-5-5"})[0] == 400
    status, body = signed(url, {k: v for k, v in good.items() if k != "anthropic_version"})
    assert status == 400 and "anthropic_version" in body
    assert signed(url, good, secret="wrong")[0] == 403
    assert _post(url, json.dumps(good).encode(), {"content-type": "application/json"})[0] == 403  # unsigned
    legacy = f"{bedrock.url}/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream"
    assert signed(legacy, {**good, "anthropic_version": "2026-10-21"})[0] == 400
    assert signed(url.replace("claude-sonnet-5-5", "claude-sonnet-9"), good)[0] == 400
    bedrock.api.reply(text("ok"))
    assert signed(url, good)[0] == 200


def test_a_plan_run_on_vertex_uses_adc_and_streams_sse_from_stream_raw_predict(vertex, repo):
    run, stop = plan_session(vertex.api, repo, "claude-haiku-4-5")
    assert stop.status == "done", [c.error for c in vertex.rejections()]
    assert run.plan_path is not None
    assert vertex.token_requests == 1  # the key file's signed assertion, exchanged once
    route = f"/v1/projects/{vertex.project}/locations/{vertex.region}/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"
    assert [c.path for c in vertex.calls] == [route] * 3
    for call in vertex.calls:
        assert call.headers["authorization"].removeprefix("Bearer ") in vertex.tokens
        assert "model" not in call.body and call.body["anthropic_version"] and call.body["stream"] is True


def test_the_vertex_fake_rejects_what_vertex_rejects(vertex):
    route = f"{vertex.url}/v1/projects/{vertex.project}/locations/{vertex.region}/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    token = _token(vertex)
    good = {
        "anthropic_version": "vertex-2023-10-16",
        "max_tokens": 10,
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
    auth = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    assert _post(route, json.dumps({**good, "model": "claude-sonnet-5-5"}).encode(), auth)[0] == 400
    assert _post(route, json.dumps({k: v for k, v in good.items() if k != "anthropic_version"}).encode(), auth)[0] == 400
    assert _post(route, json.dumps(good).encode(), {**auth, "authorization": "Bearer made-up"})[0] == 401
    assert _post(route.replace(vertex.project, "other-project"), json.dumps(good).encode(), auth)[0] == 404
    vertex.api.reply(text("ok"))
    status, body = _post(route, json.dumps(good).encode(), auth)
    assert status == 200 and "event: message_stop" in body


def _token(fake: FakeVertex) -> str:
    import google.auth
    import google.auth.transport.requests

    credentials, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    credentials.refresh(google.auth.transport.requests.Request())
    return credentials.token


def test_what_a_platform_needs_is_a_configuration_error_before_any_request(repo, monkeypatch):
    with pytest.raises(ModelError, match="AWS_REGION") as missing:
        Provider("bedrock", "").check()
    assert missing.value.exit_code == 2
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    with pytest.raises(ModelError, match="no AWS credentials"):
        Provider("bedrock", "us-east-1").check()
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key")
    Provider("bedrock", "us-east-1").check()  # a Bedrock API key is enough
    with pytest.raises(ModelError, match="CLOUD_ML_REGION"):
        Provider("vertex", "").check()
    with pytest.raises(ModelError, match="unknown provider 'azure'"):
        Provider.from_config(type("C", (), {"provider": "azure"})())


def test_a_gateway_without_the_models_api_falls_back_to_the_table(repo, monkeypatch):
    """A 404 that doesn't name the model is a route the gateway doesn't serve; one that does is
    the Models API saying the model doesn't exist."""
    import anthropic

    from cast.models.lookup import lookup

    api = FakeAPI().start()
    try:
        client = anthropic.Anthropic(base_url=api.url, api_key="k", max_retries=0)
        api.model_failures.append(Failure(404, {"detail": "Not Found"}))
        spec = lookup("claude-sonnet-5-5", lambda: client)
        assert spec is not None and spec.source == "built-in"
        api.model_failures.append(Failure(404, error_body("not_found_error", "model: claude-sonnet-9")))
        assert lookup("claude-sonnet-9", lambda: client) is None
    finally:
        api.stop()


def test_doctor_names_the_provider_its_region_and_where_the_facts_come_from(bedrock, repo, monkeypatch):
    from cast.models.diagnose import key_status, model_status, provider_status

    monkeypatch.chdir(repo)
    ok, detail = provider_status(repo)
    assert ok, detail
    assert "bedrock: Amazon Bedrock, region eu-west-1" in detail
    assert "claude-sonnet-5-5 is eu.anthropic.claude-sonnet-5-5" in detail and "built-in table" in detail
    assert "cast's built-in table" in model_status(repo)[0][2]
    assert key_status(repo) == (True, "not used: provider bedrock authenticates with the platform's own credentials")
    monkeypatch.delenv("AWS_REGION")
    ok, detail = provider_status(repo)
    assert not ok and "needs a region" in detail


def test_cast_names_and_platform_names_map_both_ways():
    provider = Provider("vertex", "europe-west1")
    assert provider.wire_id(provider.model_id("claude-opus-4-5")) == "claude-opus-4-5@20251101"
    bedrock = Provider("bedrock", "ap-northeast-1")
    assert bedrock.wire_id(bedrock.model_id("claude-opus-5-5")) == "jp.anthropic.claude-opus-5-5"
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/global.anthropic.claude-fable-5-2"
    assert bedrock.model_id(arn) == "claude-fable-5-2" and bedrock.wire_id("claude-fable-5-2") == arn


def test_the_repl_opens_on_a_platform_model_id_without_asking_the_claude_api(repo, monkeypatch, capsys):
    """The REPL's opening check maps a platform id to cast's and asks no Models API on a partner
    platform; on the Anthropic API the same id is unknown (the fake's Models API says so)."""
    from cast.models.registry import check_at_open
    from cast.options import Options

    api = FakeAPI().serve_models().start()
    try:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        options = Options(model="us.anthropic.claude-sonnet-5-5", cwd=repo)
        monkeypatch.setenv("CAST_PROVIDER", "bedrock")
        assert check_at_open(options) is None
        assert api.model_requests == []
        monkeypatch.setenv("CAST_PROVIDER", "anthropic")
        assert check_at_open(options) == 2
        assert "unknown model 'us.anthropic.claude-sonnet-5-5'" in capsys.readouterr().err
    finally:
        api.stop()


def test_credentials_the_platform_refuses_stop_the_run_with_exit_2_not_a_traceback(vertex, repo, tmp_path, monkeypatch):
    other = FakeVertex()
    other.server = vertex.server  # same token URI, another key: the token endpoint refuses the assertion
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(other.write_credentials(tmp_path / "other.json")))
    vertex.api.reply(text("never sent"))
    run = runs.plan_run("rename the helper", runs.Options(cwd=repo, model="claude-sonnet-5-5"))
    stop = run.turn("Plan it.", lambda event: None)
    assert stop.status == "failed" and stop.details["exit_code"] == 2, stop
    assert "provider vertex could not sign the request (RefreshError" in stop.reason
    assert vertex.calls == [] and vertex.token_requests == 1


def test_a_bedrock_exception_frame_mid_stream_is_retried_from_the_start(bedrock, repo, monkeypatch):
    bedrock.api.reply(text("Looking"), tool_use("toolu_1", "read_file", {"path": "util.py"}))  # cut after 3 events
    bedrock.cut_next(3, "throttlingException", "Too many requests, please wait before trying again.")
    monkeypatch.setattr("cast.models.anthropic.AnthropicModel.delay", lambda self, attempt, retry_after: 0.0)
    run, stop = plan_session(bedrock.api, repo, "claude-sonnet-5-5")
    assert stop.status == "done", stop
    assert len(bedrock.calls) == 4 and bedrock.rejections() == []
    assert run.plan_path is not None


def test_a_bedrock_api_key_is_sent_as_a_bearer_token_instead_of_a_signature(bedrock, repo, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-1")
    bedrock.api_keys.add("bedrock-api-key-1")
    _, stop = plan_session(bedrock.api, repo, "claude-opus-5-5")
    assert stop.status == "done", [c.error for c in bedrock.rejections()]
    assert {c.headers["authorization"] for c in bedrock.calls} == {"Bearer bedrock-api-key-1"}
    assert {c.path for c in bedrock.calls} == {"/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream"}


def test_a_plan_run_through_a_gateway_that_serves_no_models_api(repo, monkeypatch, capsys):
    """ANTHROPIC_BASE_URL at an Anthropic-compatible gateway whose /v1/models is a 404: the run
    goes ahead on cast's built-in facts and says where they came from."""
    monkeypatch.setattr("cast.models.lookup._said", set())  # its notes are said once per process
    api = FakeAPI().start()
    try:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
        api.model_failures.append(Failure(404, "404 page not found"))
        run, stop = plan_session(api, repo, "claude-sonnet-5-5")
        assert stop.status == "done", [r.error for r in api.rejections()]
        assert run.agent.model.spec is not None and run.agent.model.spec.source == "built-in"
        assert "does not serve the Models API" in capsys.readouterr().err
        assert {r.headers["authorization"] for r in api.requests} == {"Bearer gateway-token"}
    finally:
        api.stop()
