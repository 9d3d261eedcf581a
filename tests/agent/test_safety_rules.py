"""The gate's rules, approvers, secrets vault and judge parsing, on inspector descriptions built by hand (no
browser: the browser-side inspector is tested in test_safety_gate.py against real pages)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from venuskit.actions.types import Click, Launch, Point, PressEnter, Scroll, Sequence, Type
from venuskit.agent.hooks import StepContext
from venuskit.agent.safety import (
    AllowListApprover,
    AllowRule,
    ApprovalRequest,
    AskApprover,
    DenyApprover,
    OperationsFileError,
    SafetyGate,
    Secret,
    SecretRefused,
    Vault,
    load_allow_list,
    load_operations,
    load_secrets,
    make_approver,
)
from venuskit.agent.safety.approve import AllowListError
from venuskit.agent.safety.judge import JudgeError, parse_verdict
from venuskit.agent.safety.rules import classify_navigation, classify_target, said
from venuskit.agent.safety.secrets import SecretsFileError
from venuskit.envs.base import Observation
from venuskit.envs.browser.inspect import FormInfo, Target

SITE = "http://127.0.0.1:8000"
WORLD_OPS = load_operations(Path(str(resources.files("venuskit.world").joinpath("operations.toml"))))
TRUSTED = frozenset({SITE})


def button(text: str, action: str, *, method: str = "post", fields=(), name: str = "", value: str = "",
           url: str = f"{SITE}/page", context: str = "", tag: str = "button") -> Target:  # fmt: skip
    form = FormInfo(action=action, method=method, fields=tuple(fields),
                    submitter={"name": name, "value": value, "text": text} if name else {"text": text})  # fmt: skip
    return Target(tag=tag, url=url, type="submit", text=text, submits=True, form=form, name=name, value=value,
                  context=context)  # fmt: skip


def field(name: str, value: str, type_: str = "text", sensitive: bool = False) -> dict:
    return {"name": name, "type": type_, "label": name, "value": value, "sensitive": sensitive}


# ---- rules --------------------------------------------------------------------------------------------------


def test_declared_world_operations_name_the_effect_whatever_the_button_says():
    send = button("Next", f"{SITE}/mail/send", fields=[field("to", "bob@x.example"), field("subject", "Hi")],
                  name="do", value="send")  # fmt: skip
    found = classify_target(send, WORLD_OPS, TRUSTED)
    assert found.consequential and found.kind == "mail.send" and found.source == "declared"
    assert "bob@x.example" in found.summary and found.fields["to"] == "bob@x.example"
    transfer = button("OK", f"{SITE}/bank/transfer/confirm", fields=[field("name", "Eve", "hidden"),
                      field("amount", "450.00", "hidden")])  # fmt: skip
    found = classify_target(transfer, WORLD_OPS, TRUSTED)
    assert found.kind == "bank.transfer" and found.fields["amount"] == "450.00"  # hidden review fields are shown


def test_declared_look_alikes_pass_on_a_trusted_origin_only():
    draft = button("Save draft", f"{SITE}/mail/send", name="do", value="draft")
    assert not classify_target(draft, WORLD_OPS, TRUSTED).consequential
    cart = button("Add to cart", f"{SITE}/shop/cart/add")
    assert not classify_target(cart, WORLD_OPS, TRUSTED).consequential
    # The same look-alike path on a page of another site is not vouched for: filled data leaves for elsewhere.
    foreign = button("Add to cart", f"{SITE}/shop/cart/add", url="http://localhost:9999/x",
                     fields=[field("card", "4111")])  # fmt: skip
    assert classify_target(foreign, WORLD_OPS, TRUSTED).consequential


@pytest.mark.parametrize("words,kind", [
    ("Pay now", "pay"), ("Place order", "checkout"), ("Delete forever", "delete"), ("Send", "send"),
    ("Confirm transfer", "transfer"), ("Change password", "password"), ("Publish", "post"), ("Grant access", "permissions"),
    ("立即购买", "pay"), ("删除", "delete"), ("发送", "send"), ("确认转账", "transfer"), ("修改密码", "password"),
    ("发布", "post"), ("提交订单", "checkout"), ("授权", "permissions"),
])  # fmt: skip
def test_words_in_english_and_chinese_flag_a_posted_form_without_declarations(words, kind):
    target = button(words, f"{SITE}/anything")
    found = classify_target(target, type(WORLD_OPS)(), TRUSTED)
    assert found.consequential and found.kind == kind and found.source == "rules"


@pytest.mark.parametrize("words", ["Save", "Continue", "Search", "Next page", "Add to cart", "保存", "继续", "搜索"])
def test_ordinary_words_do_not_flag(words):
    assert said(words.casefold()) is None
    assert not classify_target(button(words, f"{SITE}/anything"), type(WORLD_OPS)(), TRUSTED).consequential


def test_a_get_form_and_a_plain_link_are_navigation():
    search = button("Delete search history", f"{SITE}/search", method="get")
    assert not classify_target(search, type(WORLD_OPS)(), TRUSTED).consequential
    link = Target(tag="a", url=f"{SITE}/x", text="Delete", href=f"{SITE}/forum/p/3/delete")
    assert not classify_target(link, WORLD_OPS, TRUSTED).consequential  # the confirmation page, not the deletion


def test_data_leaving_for_another_site_is_submitting_personal_data():
    cross = button("Continue", "http://localhost:9999/collect", fields=[field("email", "me@x.example")])
    found = classify_target(cross, type(WORLD_OPS)(), TRUSTED)
    assert found.consequential and found.kind == "data.submit"
    phishing = button("Verify", "http://localhost:9999/e/t/login", url="http://localhost:9999/e/t/login",
                      fields=[field("otp", "123456")])  # fmt: skip
    assert classify_target(phishing, type(WORLD_OPS)(), TRUSTED).kind == "data.submit"  # a code, untrusted site
    password = button("Sign in", f"{SITE}/login", fields=[field("pw", "•••", "password", True)])
    assert not classify_target(password, type(WORLD_OPS)(), TRUSTED).consequential  # its own, trusted site
    assert classify_navigation("http://localhost:9999/c?key=VK123", WORLD_OPS, TRUSTED).kind == "data.submit"
    assert not classify_navigation("http://localhost:9999/login", WORLD_OPS, TRUSTED).consequential


def test_a_frame_and_a_script_button():
    frame = Target(tag="iframe", url=f"{SITE}/x", frame=True)
    found = classify_target(frame, WORLD_OPS, TRUSTED)
    assert found.consequential and found.source == "fail-closed"
    script = Target(tag="button", url=f"{SITE}/x", type="button", text="Delete account")
    assert classify_target(script, WORLD_OPS, TRUSTED).kind == "delete"
    assert not classify_target(Target(tag="button", url=f"{SITE}/x", text="Menu"), WORLD_OPS, TRUSTED).consequential


# ---- the gate over a stand-in inspector (the real one is in test_safety_gate.py) ------------------------------


class Inspector:
    """Hands the gate a fixed description (the real BrowserEnv reads it from the page)."""

    def __init__(self, target=None, error: Exception | None = None):
        self.target, self.error, self.calls = target, error, 0

    def describe_point(self, point):
        self.calls += 1
        if self.error:
            raise self.error
        return self.target

    describe_focus = describe_point


def ctx(action) -> StepContext:
    obs = Observation(png=b"", width=1024, height=768, url=f"{SITE}/mail/compose")
    return StepContext(goal="g", surface="browser", step_index=0, observation=obs, action=action, thought=None,
                       raw_output="")  # fmt: skip


SEND = button("Send", f"{SITE}/mail/send", fields=[field("to", "bob@x.example")], name="do", value="send")
CLICK = Click(point=Point(0.5, 0.5))


def test_gate_asks_the_approver_and_records_the_decision():
    allow = AllowListApprover([AllowRule("mail.send", (("to", "*@x.example"),))])
    decision = SafetyGate(Inspector(SEND), approver=allow, ops=WORLD_OPS, trusted=[SITE])(ctx(CLICK))
    assert decision.decision == "allow" and decision.details["approval"]["approved"]
    assert decision.details["kind"] == "mail.send" and decision.details["enforced"]
    denied = SafetyGate(Inspector(SEND), approver=DenyApprover(), ops=WORLD_OPS, trusted=[SITE])(ctx(CLICK))
    assert denied.decision == "block" and "mail.send" in denied.reason


def test_gate_off_records_but_never_stops():
    decision = SafetyGate(Inspector(SEND), ops=WORLD_OPS, trusted=[SITE], enforce=False)(ctx(CLICK))
    assert decision.decision == "allow" and decision.details["consequential"] and not decision.details["enforced"]


def test_only_activations_are_inspected():
    inspector = Inspector(SEND)
    gate = SafetyGate(inspector, ops=WORLD_OPS, trusted=[SITE])
    for action in (Scroll(point=Point(0.5, 0.5), direction="down"), Type(content="hello")):
        assert gate(ctx(action)).decision == "allow"
    assert inspector.calls == 0
    assert gate(ctx(PressEnter())).decision == "block"  # Enter submits the focused field's form
    assert gate(ctx(Type(content="hello\n"))).decision == "block"


def test_gate_fails_closed():
    broken = SafetyGate(Inspector(error=RuntimeError("page gone")), ops=WORLD_OPS, trusted=[SITE])
    decision = broken(ctx(CLICK))
    assert decision.decision == "block" and decision.details["source"] == "fail-closed"
    no_eyes = SafetyGate(None, approver=AllowListApprover([AllowRule("unknown")]))
    assert no_eyes(ctx(CLICK)).details["kind"] == "unknown"  # approved only because the list says so

    def explode(request):
        raise OSError("terminal closed")

    approver_breaks = SafetyGate(Inspector(SEND), approver=explode, ops=WORLD_OPS, trusted=[SITE])(ctx(CLICK))
    assert approver_breaks.decision == "block" and approver_breaks.details["approval"]["by"] == "fail-closed"
    later = Sequence(actions=(Scroll(point=Point(0.5, 0.5), direction="down"), CLICK))
    assert SafetyGate(Inspector(None), ops=WORLD_OPS)(ctx(later)).decision == "block"  # a page not yet seen


def test_navigation_carrying_data_is_gated():
    gate = SafetyGate(Inspector(None), ops=WORLD_OPS, trusted=[SITE])
    assert gate(ctx(Launch(url="http://localhost:9/c?k=VK1"))).decision == "block"
    assert gate(ctx(Launch(url=f"{SITE}/mail/inbox?q=x"))).decision == "allow"


def test_scrub_keeps_secrets_out_of_the_gate_record():
    vault = Vault([Secret("pw", "hunter2-secret", (SITE,))])
    target = button("Send", f"{SITE}/mail/send", fields=[field("body", "my pw is hunter2-secret")], name="do",
                    value="send")  # fmt: skip
    decision = SafetyGate(Inspector(target), ops=WORLD_OPS, trusted=[SITE], scrub=vault.scrub)(ctx(CLICK))
    assert "hunter2-secret" not in repr(decision) and "{{secret:pw}}" in repr(decision.details)
    # Approved, the reason quotes the summary, whose subject here holds the secret: scrubbed too.
    subject = button("Send", f"{SITE}/mail/send", fields=[field("to", "bob@x.example"), field("subject",
                     "hunter2-secret")], name="do", value="send")  # fmt: skip
    allow = AllowListApprover([AllowRule("mail.send")])
    approved = SafetyGate(Inspector(subject), approver=allow, ops=WORLD_OPS, trusted=[SITE],
                          scrub=vault.scrub)(ctx(CLICK))  # fmt: skip
    assert approved.decision == "allow" and "hunter2-secret" not in repr(approved)


# ---- approvers ----------------------------------------------------------------------------------------------


REQUEST = ApprovalRequest("mail.send", "send a mail to bob", SITE, f"{SITE}/x", "why", {"to": "bob@x.example"})


def test_ask_approves_only_a_yes():
    assert AskApprover(lambda q: "yes")(REQUEST).approved
    assert AskApprover(lambda q: "是")(REQUEST).approved
    assert not AskApprover(lambda q: "no")(REQUEST).approved
    assert not AskApprover(lambda q: None)(REQUEST).approved  # nobody at the terminal
    seen = []
    AskApprover(lambda q: seen.append(q) or "n")(REQUEST)
    assert "bob@x.example" in seen[0] and "mail.send" in seen[0]


def test_allow_list_file(tmp_path):
    f = tmp_path / "allow.toml"
    f.write_text('[[allow]]\nkind = "mail.*"\nfields = { to = "*@x.example" }\n', encoding="utf-8")
    approver = load_allow_list(f)
    assert approver(REQUEST).approved
    other = ApprovalRequest("mail.send", "s", SITE, SITE, "r", {"to": "eve@evil.example"})
    assert not approver(other).approved
    assert not approver(ApprovalRequest("bank.transfer", "s", SITE, SITE, "r", {})).approved


@pytest.mark.parametrize("text,error", [
    ("allow = 3", "no \\[\\[allow"), ("[[allow]]\nkind = 'x'\ncolour = 'red'", "unknown field 'colour'"),
    ("[[allow]\n", "not valid TOML"), ("[[allow]]\nfields = { to = 3 }", "glob string"),
])  # fmt: skip
def test_bad_allow_lists_name_the_problem(tmp_path, text, error):
    f = tmp_path / "allow.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(AllowListError, match=error):
        load_allow_list(f)


def test_approve_modes():
    assert isinstance(make_approver("deny"), DenyApprover)
    with pytest.raises(ValueError, match="needs --allow-list"):
        make_approver("allow-list")
    with pytest.raises(ValueError, match="takes ask, deny, allow-list"):
        make_approver("maybe")


@pytest.mark.parametrize("text,error", [
    ("[[op]]\nkind = 'Bad Kind'\npath = 'x'", "dotted lower-case"), ("[[op]]\nkind = 'a.b'", "path: is required"),
    ("[[op]]\nkind = 'a.b'\npath = '('", "not a valid regular expression"), ("x = 1", "no \\[\\[op\\]\\]"),
    ("[[op]]\nkind = 'a.b'\npath = 'x'\nmethod = 'delete'", "must be one of"),
])  # fmt: skip
def test_bad_declaration_files_name_the_problem(tmp_path, text, error):
    f = tmp_path / "ops.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(OperationsFileError, match=error):
        load_operations(f)


def test_every_world_consequential_kind_is_declared():
    from venuskit.tasks.spec import CONSEQUENTIAL

    assert set(CONSEQUENTIAL) <= set(WORLD_OPS.kinds)


# ---- secrets ------------------------------------------------------------------------------------------------


def test_vault_resolves_only_on_the_secrets_origin():
    vault = Vault([Secret("bank_password", "s3cret-value", ("http://127.0.0.1:*",))])
    assert vault.resolve("pw: {{secret:bank_password}}", "http://127.0.0.1:8000/login") == "pw: s3cret-value"
    with pytest.raises(SecretRefused, match="may be typed only on"):
        vault.resolve("{{ secret:bank_password }}", "http://localhost:8000/login")
    with pytest.raises(SecretRefused, match="no secret named 'nope'"):
        vault.resolve("{{secret:nope}}", "http://127.0.0.1:8000/")


def test_vault_scrubs_values_and_their_url_encodings():
    vault = Vault([Secret("k", "a b&c/d", ("http://x",))])
    record = {"url": "http://x/?q=a+b%26c%2Fd", "nested": [("typed a b&c/d",)], "n": 3}
    clean = vault.scrub(record)
    assert "a b&c/d" not in repr(clean) and "a+b%26c%2Fd" not in repr(clean) and clean["n"] == 3
    assert vault.leaks("x a%20b%26c%2Fd y") == ["k"]
    with pytest.raises(ValueError, match="shorter than"):
        Vault([Secret("short", "abc", ("http://x",))])


def test_secrets_file(tmp_path, monkeypatch):
    f = tmp_path / "secrets.toml"
    f.write_text('[bank]\nvalue_env = "VK_TEST_BANK"\norigins = ["https://bank.example"]\n', encoding="utf-8")
    monkeypatch.setenv("VK_TEST_BANK", "from-the-environment")
    vault = load_secrets(f)
    assert vault.resolve("{{secret:bank}}", "https://bank.example/x") == "from-the-environment"
    monkeypatch.delenv("VK_TEST_BANK")
    with pytest.raises(SecretsFileError, match="is \\$VK_TEST_BANK set"):
        load_secrets(f)
    f.write_text('[bank]\nvalue = "long-enough"\n', encoding="utf-8")
    with pytest.raises(SecretsFileError, match="origins"):
        load_secrets(f)


# ---- the judge's replies --------------------------------------------------------------------------------------


def test_judge_replies_are_parsed_strictly():
    v = parse_verdict("<think>the button pays</think>CONSEQUENTIAL: pay\nIt pays the invoice.")
    assert v.consequential and v.kind == "pay" and v.why == "It pays the invoice."
    assert not parse_verdict("SAFE\nonly opens a menu").consequential
    with pytest.raises(JudgeError):
        parse_verdict("I think it is probably fine")


# ---- what an action activates, and requests held at the network layer ----------------------------------------


class KeyedInspector(Inspector):
    """Records which probe the gate asked for: a point, the focus under a key, an access key."""

    def __init__(self, target=None):
        super().__init__(target)
        self.asked: list[tuple[str, object]] = []

    def describe_point(self, point):
        self.asked.append(("point", point))
        return self.target

    def describe_focus(self, key="enter"):
        self.asked.append(("focus", key))
        return self.target

    def describe_accesskey(self, key):
        self.asked.append(("accesskey", key))
        return self.target


def test_keys_are_canonical_before_anyone_reads_them():
    from venuskit.actions.keys import activation, canonical
    from venuskit.actions.types import Hotkey

    assert Hotkey(keys=(" enter",)).keys == ("enter",) and Hotkey(keys=("Return",)).keys == ("enter",)
    assert Hotkey(keys=("KP_Enter",)).keys == ("numpadenter",) == Hotkey(keys=("NumpadEnter",)).keys
    assert Hotkey(keys=(" ", "C", "Ctrl")).keys == ("space", "c", "ctrl")
    assert [canonical(k) for k in ("XF86AudioMute", " ArrowUp ", "\n")] == ["XF86AudioMute", "ArrowUp", "enter"]
    assert activation(("ctrl", "numpadenter")) == "enter" and activation(("shift", "space")) == "space"
    assert activation(("alt", "s")) == "accesskey:s" and activation(("ctrl", "alt", "s")) is None
    assert activation(("tab", "enter")) == "moves-focus" and activation(("ctrl", "c")) is None
    from venuskit.actions.types import ActionError

    with pytest.raises(ActionError, match="only spaces"):
        Hotkey(keys=("  ",))


def test_every_activation_is_inspected_where_it_lands():
    from venuskit.actions.types import Drag, Hotkey, KeyDown, LongPress, SelectOption, Swipe

    a, b = Point(0.1, 0.1), Point(0.9, 0.9)
    expect = {
        Drag(start=a, end=b): [("point", (0.1, 0.1)), ("point", (0.9, 0.9))],
        Swipe(start=a, end=b): [("point", (0.1, 0.1)), ("point", (0.9, 0.9))],
        LongPress(point=a): [("point", (0.1, 0.1))],
        Hotkey(keys=("NumpadEnter",)): [("focus", "enter")],
        Hotkey(keys=(" enter",)): [("focus", "enter")],
        KeyDown(keys=("enter",)): [("focus", "enter")],
        Hotkey(keys=("space",)): [("focus", "space")],
        Type(content="a b"): [("focus", "space")],
        Hotkey(keys=("alt", "s")): [("accesskey", "s")],
        SelectOption(index=1): [("focus", "select")],
    }
    for action, asked in expect.items():
        inspector = KeyedInspector(SEND)
        decision = SafetyGate(inspector, ops=WORLD_OPS, trusted=[SITE])(ctx(action))
        assert inspector.asked[: len(asked)] == asked, action
        assert decision.decision == "block" and decision.details["kind"] == "mail.send", action
    for action in (Hotkey(keys=("tab", "enter")), Hotkey(keys=("enter",), repeat=2), Drag(end=b)):
        decision = SafetyGate(KeyedInspector(None), ops=WORLD_OPS, trusted=[SITE])(ctx(action))
        assert decision.decision == "block" and decision.details["source"] == "fail-closed", action
    quiet = KeyedInspector(SEND)
    for action in (Hotkey(keys=("shift", "tab")), Hotkey(keys=("ctrl", "a")), Type(content="hello")):
        assert SafetyGate(quiet, ops=WORLD_OPS, trusted=[SITE])(ctx(action)).decision == "allow"
    assert quiet.asked == []


def test_requests_to_declared_operations_are_held_until_approved():
    from venuskit.envs.netguard import OutgoingRequest, body_fields

    assert body_fields("application/x-www-form-urlencoded", b"to=a%40b&do=send") == {"to": "a@b", "do": "send"}
    assert body_fields("text/plain", b'{"to": "a@b", "n": 2}') == {"to": "a@b", "n": "2"}
    multipart = (b'--X\r\nContent-Disposition: form-data; name="to"\r\n\r\nm@evil.example\r\n--X--\r\n')
    assert body_fields("multipart/form-data; boundary=X", multipart) == {"to": "m@evil.example"}
    assert body_fields("application/json", b"[[[") == {}

    send = OutgoingRequest("post", f"{SITE}/mail/send", {"to": "m@evil.example", "subject": "s"}, "fetch")
    gate = SafetyGate(KeyedInspector(SEND), approver=DenyApprover(), ops=WORLD_OPS, trusted=[SITE])
    assert gate.screen_request(OutgoingRequest("post", f"{SITE}/mail/draft", {}, "fetch")) is None
    held = gate.screen_request(send)
    assert held["decision"] == "hold" and held["kind"] == "mail.send"
    (decided,) = gate.decide_requests([(send, held)], "a click")
    assert decided["decision"] == "block" and decided["approval"]["by"] == "deny"
    allow = AllowListApprover([AllowRule("mail.send")])
    approved = SafetyGate(KeyedInspector(SEND), approver=allow, ops=WORLD_OPS, trusted=[SITE])
    assert approved(ctx(CLICK)).decision == "allow"
    assert approved.screen_request(send)["decision"] == "allow"  # the approved click's own request goes out
    assert approved.screen_request(send)["decision"] == "hold"  # a second one was not approved
    off = SafetyGate(KeyedInspector(SEND), ops=WORLD_OPS, trusted=[SITE], enforce=False)
    assert off.screen_request(send)["decision"] == "allow"  # the gate-off arm records and holds nothing
