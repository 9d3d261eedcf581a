# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""English and Chinese strings, dates and money for the world's apps."""

from __future__ import annotations

import datetime as dt

# key -> (en, zh). Keys are English-ish so templates stay readable.
STRINGS: dict[str, tuple[str, str]] = {
    # shell
    "apps": ("Apps", "应用"), "mail": ("Mail", "邮件"), "calendar": ("Calendar", "日历"), "drive": ("Drive", "云盘"),
    "expense": ("FinPortal", "财务报销"), "bank": ("Bank", "银行"), "settings": ("Settings", "设置"),
    "help": ("Help", "帮助"), "home": ("Home", "首页"), "search": ("Search", "搜索"), "menu": ("Menu", "菜单"),
    "today": ("Today", "今天"), "save": ("Save", "保存"), "cancel": ("Cancel", "取消"), "delete": ("Delete", "删除"),
    "back": ("Back", "返回"), "close": ("Close", "关闭"), "open": ("Open", "打开"), "edit": ("Edit", "编辑"),
    "name": ("Name", "名称"), "none": ("Nothing here yet.", "这里还没有内容。"), "saved": ("Saved.", "已保存。"),
    "welcome": ("Good morning, {name}", "早上好，{name}"), "all_apps": ("Your apps", "你的应用"),
    "app_mail_desc": ("Read and send email", "收发邮件"), "app_calendar_desc": ("Meetings and events", "会议与日程"),
    "app_drive_desc": ("Files, PDFs, docs and sheets", "文件、PDF、文档与表格"),
    "app_expense_desc": ("Travel & expense reports (legacy)", "差旅与费用报销（旧系统）"),
    "app_bank_desc": ("Accounts, transactions, transfers", "账户、交易与转账"),
    "app_settings_desc": ("Profile, language, password", "个人资料、语言、密码"),
    # mail
    "compose": ("Compose", "写邮件"), "inbox": ("Inbox", "收件箱"), "starred": ("Starred", "已加星标"),
    "sent": ("Sent", "已发送"), "drafts": ("Drafts", "草稿箱"), "trash": ("Trash", "已删除"),
    "search_mail": ("Search mail", "搜索邮件"), "to": ("To", "收件人"), "cc": ("Cc", "抄送"),
    "subject": ("Subject", "主题"), "message": ("Message", "正文"), "send": ("Send", "发送"),
    "save_draft": ("Save draft", "存草稿"), "discard": ("Discard", "舍弃"), "reply": ("Reply", "回复"), "reply_all": ("Reply all", "全部回复"),
    "forward": ("Forward", "转发"), "move_to_trash": ("Delete", "删除"), "restore": ("Restore", "恢复"),
    "delete_forever": ("Delete forever", "永久删除"), "star": ("Star", "加星标"), "unstar": ("Unstar", "取消星标"),
    "mark_unread": ("Mark as unread", "标为未读"), "attachments": ("Attachments", "附件"),
    "attach_from_drive": ("Attach from Drive", "从云盘添加附件"), "view": ("View", "查看"),
    "save_to_drive": ("Save to Drive", "保存到云盘"), "saved_to_drive": ("Saved to Drive", "已保存到云盘"),
    "new_message": ("New message", "新邮件"), "me": ("me", "我"), "no_subject": ("(no subject)", "（无主题）"),
    "results_for": ("Results for “{q}”", "“{q}”的搜索结果"), "no_results": ("No messages match your search.",
                                                                    "没有符合条件的邮件。"),
    "mail_sent": ("Message sent.", "邮件已发送。"), "draft_saved": ("Draft saved.", "草稿已保存。"),
    "moved_to_trash": ("Conversation moved to Trash.", "邮件已移至已删除。"), "from": ("From", "发件人"),
    "date": ("Date", "日期"), "remove": ("Remove", "移除"), "empty_folder": ("No conversations in {folder}.",
                                                                          "{folder}中没有邮件。"),
    "fwd_header": ("---------- Forwarded message ---------", "---------- 转发的邮件 ----------"),
    "wrote": ("On {date}, {name} wrote:", "{date}，{name} 写道："),
    "to_required": ("Add at least one recipient.", "请至少填写一个收件人。"),
    # drive
    "my_drive": ("My Drive", "我的云盘"), "recent": ("Recent", "最近"), "new": ("New", "新建"),
    "new_doc": ("New document", "新建文档"), "new_sheet": ("New spreadsheet", "新建表格"),
    "search_drive": ("Search in Drive", "在云盘中搜索"), "owner": ("Owner", "所有者"), "folder": ("Folder", "文件夹"),
    "modified": ("Last modified", "修改时间"), "size": ("Size", "大小"), "rename": ("Rename", "重命名"),
    "page": ("Page", "页"), "of": ("of", "/"), "zoom": ("Zoom", "缩放"), "download": ("Download", "下载"),
    "untitled_doc": ("Untitled document", "无标题文档"), "untitled_sheet": ("Untitled spreadsheet", "无标题表格"),
    "title": ("Title", "标题"), "add_row": ("Add row", "添加行"), "file_trashed": ("File moved to Trash.", "文件已移至回收站。"),
    "choose_file": ("Choose a file from Drive", "从云盘选择文件"), "attach": ("Attach", "添加"),
    # calendar
    "new_event": ("New event", "新建日程"), "month": ("Month", "月"), "week": ("Week", "周"), "day": ("Day", "日"),
    "start": ("Start", "开始"), "end": ("End", "结束"), "location": ("Location", "地点"), "guests": ("Guests", "参与者"),
    "notes": ("Notes", "备注"), "accept": ("Accept", "接受"), "decline": ("Decline", "拒绝"),
    "invitation": ("Invitation", "邀请"), "accepted": ("Accepted", "已接受"), "declined": ("Declined", "已拒绝"),
    "invited": ("Awaiting your reply", "待回复"), "organizer": ("Organizer", "组织者"), "prev": ("Previous", "上一个"),
    "next": ("Next", "下一个"), "all_day": ("All day", "全天"), "time": ("Time", "时间"),
    "no_events": ("No events.", "没有日程。"),
    "bad_time": ("Enter a valid date (YYYY-MM-DD) and times (HH:MM).", "请输入有效的日期（YYYY-MM-DD）和时间（HH:MM）。"),
    "need_title": ("Add a title and an end after the start.", "请填写标题，且结束时间须晚于开始时间。"), "event_deleted": ("Event deleted.", "日程已删除。"),
    # bank
    "accounts": ("Accounts", "账户"), "transactions": ("Transactions", "交易记录"), "transfer": ("Transfer", "转账"),
    "statements": ("Statements", "对账单"), "balance": ("Balance", "余额"), "available": ("Available", "可用"),
    "description": ("Description", "描述"), "category": ("Category", "类别"), "amount": ("Amount", "金额"),
    "reference": ("Reference", "参考号"), "from_date": ("From", "起始日期"), "to_date": ("To", "截止日期"),
    "filter": ("Filter", "筛选"), "reset": ("Reset", "重置"), "all": ("All", "全部"), "money_in": ("Money in", "收入"),
    "money_out": ("Money out", "支出"), "recipient": ("Recipient", "收款人"), "iban": ("IBAN", "账号 IBAN"),
    "memo": ("Reference text", "附言"), "from_account": ("From account", "付款账户"), "continue": ("Continue", "继续"),
    "confirm_transfer": ("Confirm transfer", "确认转账"), "review_transfer": ("Review your transfer",
                                                                               "核对转账信息"),
    "transfer_done": ("Transfer sent.", "转账已提交。"), "saved_payees": ("Saved recipients", "常用收款人"),
    "new_recipient": ("New recipient", "新收款人"), "statement_for": ("Statement {month}", "{month} 对账单"),
    "opening": ("Opening balance", "期初余额"), "closing": ("Closing balance", "期末余额"),
    "amount_invalid": ("Enter an amount greater than zero.", "请输入大于零的金额。"),
    "insufficient": ("Insufficient funds in this account.", "该账户余额不足。"),
    "recipient_required": ("Enter the recipient's name and IBAN.", "请填写收款人姓名和 IBAN。"),
    "search_txn": ("Search transactions", "搜索交易"), "txn_detail": ("Transaction details", "交易详情"),
    "posted": ("Posted", "入账日期"), "account": ("Account", "账户"),
    # settings
    "profile": ("Profile", "个人资料"), "language": ("Language", "语言"), "password": ("Password", "密码"),
    "notifications": ("Notifications", "通知"), "full_name": ("Full name", "姓名"), "email": ("Email", "邮箱"),
    "department": ("Department", "部门"), "current_password": ("Current password", "当前密码"),
    "new_password": ("New password", "新密码"), "confirm_password": ("Confirm new password", "确认新密码"),
    "change_password": ("Change password", "修改密码"), "password_changed": ("Password changed.", "密码已修改。"),
    "password_mismatch": ("The new passwords do not match.", "两次输入的新密码不一致。"),
    "password_short": ("The new password must have at least 8 characters.", "新密码至少需要 8 个字符。"),
    "password_wrong": ("The current password is not correct.", "当前密码不正确。"),
    "notify_email": ("Email me about new messages", "有新邮件时发邮件通知我"),
    "notify_push": ("Push notifications on this device", "在此设备上推送通知"),
}  # fmt: skip


def t(locale: str, key: str, **kw: object) -> str:
    pair = STRINGS.get(key)
    text = key if pair is None else pair[1 if locale == "zh" else 0]
    return text.format(**kw) if kw else text


_WEEKDAYS = ("一", "二", "三", "四", "五", "六", "日")


def long_date(locale: str, day: dt.date) -> str:
    if locale == "zh":
        return f"{day.year}年{day.month}月{day.day}日 星期{_WEEKDAYS[day.weekday()]}"
    return day.strftime("%a, %-d %b %Y")


def short_date(locale: str, stamp: str, today: dt.date) -> str:
    """Mail-list style: the time for today's items, else the day (and year if not this year)."""
    when = dt.datetime.fromisoformat(stamp) if "T" in stamp else dt.datetime.fromisoformat(stamp + "T00:00")
    if when.date() == today and "T" in stamp:
        return when.strftime("%H:%M")
    if locale == "zh":
        return f"{when.month}月{when.day}日" if when.year == today.year else f"{when.year}/{when.month}/{when.day}"
    return when.strftime("%-d %b") if when.year == today.year else when.strftime("%-d %b %Y")


def date_time(locale: str, stamp: str) -> str:
    when = dt.datetime.fromisoformat(stamp)
    if locale == "zh":
        return f"{when.year}年{when.month}月{when.day}日 {when:%H:%M}"
    return when.strftime("%a, %-d %b %Y, %H:%M")


def month_label(locale: str, day: dt.date) -> str:
    return f"{day.year}年{day.month}月" if locale == "zh" else day.strftime("%B %Y")


def money(locale: str, cents: int, currency: str = "EUR") -> str:
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(int(cents)), 100)
    symbol = {"EUR": "€", "USD": "$", "CNY": "¥", "GBP": "£"}.get(currency, currency + " ")
    return f"{sign}{symbol}{units:,}.{rest:02d}"
