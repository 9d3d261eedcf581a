# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""Help pages: what each app can do, in English and Chinese. Capability catalogs start from these."""

from __future__ import annotations

from typing import Any


def _h(title: str, intro: str, *sections: tuple[str, str]) -> dict[str, Any]:
    return {"title": title, "intro": intro, "sections": list(sections)}


HELP: dict[str, dict[str, dict[str, Any]]] = {
    "mail": {
        "en": _h("Mail help", "Mail keeps your conversations in folders: Inbox, Starred, Sent, Drafts and Trash.",
                 ("Read", "Click a message in a folder to open it. Opening marks it as read; 'Mark as unread' undoes that."),
                 ("Search", "Type in the search box at the top and press Enter. Search looks at sender, recipients, "
                            "subject and text in every folder except Trash."),
                 ("Compose", "Click Compose, fill in To (separate several addresses with commas), Cc, Subject and the "
                             "message, then Send. 'Save draft' keeps it in Drafts; open a draft to continue it."),
                 ("Reply and forward", "Open a message and click Reply or Forward. Forwarding keeps the attachments "
                                       "(untick one to leave it out)."),
                 ("Attachments", "Attachments appear under the message: View opens the document viewer, 'Save to "
                                 "Drive' stores a copy in Drive. To attach files, open 'Attach from Drive' while "
                                 "composing and tick the files."),
                 ("Star and delete", "Star marks a message as important. Delete moves it to Trash; in Trash you can "
                                     "Restore it or Delete forever.")),
        "zh": _h("邮件帮助", "邮件按文件夹整理：收件箱、已加星标、已发送、草稿箱和已删除。",
                 ("阅读", "点击文件夹中的邮件即可打开，打开后标为已读；“标为未读”可撤销。"),
                 ("搜索", "在顶部搜索框输入后按回车。搜索范围包括发件人、收件人、主题和正文，不含“已删除”。"),
                 ("写邮件", "点击“写邮件”，填写收件人（多个地址用逗号分隔）、抄送、主题和正文，然后点击“发送”。“存草稿”会保存到草稿箱，打开草稿可继续编辑。"),
                 ("回复与转发", "打开邮件后点击“回复”或“转发”。转发会保留附件（取消勾选即可去掉）。"),
                 ("附件", "附件显示在正文下方：“查看”用文档查看器打开，“保存到云盘”会在云盘中保存一份。写邮件时展开“从云盘添加附件”并勾选文件即可添加附件。"),
                 ("星标与删除", "星标用于标记重要邮件。“删除”会移到“已删除”，在那里可以“恢复”或“永久删除”。")),
    },
    "drive": {
        "en": _h("Drive help", "Drive stores your files: PDFs, documents and spreadsheets.",
                 ("Browse", "My Drive lists every file by folder; Recent sorts by last change; Starred and Trash filter."),
                 ("Search", "The search box finds files by name and by the text inside them."),
                 ("Open", "PDFs open in the viewer (scroll to read every page). Documents open in the editor, "
                          "spreadsheets in the grid; change the text or cells and click Save."),
                 ("Create", "New → New document or New spreadsheet creates an untitled file; rename it in the title box."),
                 ("Delete", "The bin icon on a row moves the file to Trash; restore it from Trash.")),
        "zh": _h("云盘帮助", "云盘保存你的文件：PDF、文档和表格。",
                 ("浏览", "“我的云盘”按文件夹列出所有文件；“最近”按修改时间排序；“已加星标”和“回收站”用于筛选。"),
                 ("搜索", "搜索框可按文件名和文件内容查找。"),
                 ("打开", "PDF 在查看器中打开（滚动阅读所有页）。文档在编辑器中打开，表格在网格中打开；修改后点击“保存”。"),
                 ("新建", "“新建”→“新建文档”或“新建表格”会创建无标题文件，可在标题框中重命名。"),
                 ("删除", "点击行尾的垃圾桶图标会把文件移到回收站，可在回收站中恢复。")),
    },
    "calendar": {
        "en": _h("Calendar help", "Calendar shows your month with every meeting and invitation.",
                 ("Navigate", "Use the arrows to change month and Today to come back."),
                 ("Create", "Click New event (or a day number), enter title, date (YYYY-MM-DD), start and end "
                            "(HH:MM), location and guests, then Save."),
                 ("Edit and delete", "Open an event, then Edit or Delete."),
                 ("Invitations", "Invitations awaiting your reply are listed on the left and drawn with a dashed "
                                 "border; open one and click Accept or Decline.")),
        "zh": _h("日历帮助", "日历按月显示你的会议和邀请。",
                 ("浏览", "用箭头切换月份，点击“今天”返回当月。"),
                 ("新建", "点击“新建日程”（或某一天的日期），填写标题、日期（YYYY-MM-DD）、开始和结束时间（HH:MM）、地点和参与者，然后保存。"),
                 ("编辑与删除", "打开日程后点击“编辑”或“删除”。"),
                 ("邀请", "待回复的邀请列在左侧并以虚线框显示；打开后点击“接受”或“拒绝”。")),
    },
    "bank": {
        "en": _h("Bank help", "Online banking for your checking, savings and credit card accounts.",
                 ("Accounts", "The overview shows every balance and the latest transactions; click an account for "
                              "its full history."),
                 ("Find a transaction", "In an account, search by description or reference, filter by date "
                                        "(YYYY-MM-DD) and by money in or out, then click a row for its details."),
                 ("Statements", "Statements lists each month with opening and closing balance."),
                 ("Transfers", "Transfer → choose the account, a saved recipient or a new one (name and IBAN), the "
                               "amount and a reference text → Continue → check → Confirm transfer. A confirmed "
                               "transfer cannot be undone.")),
        "zh": _h("银行帮助", "网上银行：活期、储蓄和信用卡账户。",
                 ("账户", "总览显示各账户余额和最近交易；点击账户可查看完整记录。"),
                 ("查找交易", "在账户页可按描述或参考号搜索，按日期（YYYY-MM-DD）和收支筛选，点击一行查看详情。"),
                 ("对账单", "对账单按月列出期初和期末余额。"),
                 ("转账", "转账 → 选择付款账户、常用收款人或新收款人（姓名和 IBAN）、金额和附言 → 继续 → 核对 → 确认转账。确认后无法撤销。")),
    },
    "expense": {
        "en": _h("FinPortal manual (v2.3)", "Travel & expense reports. Mandatory fields are marked *.",
                 ("Create report", "Exp. Rpt → New. Hdr: Bus. Purp. (business purpose), CC/WBS (cost centre), "
                                   "Trip Fr/To (YYYY-MM-DD), Apprvr (approver). Save & Next."),
                 ("Lines", "One line per expense: Dt, Exp.Cat.Cd (category code, see list below), Mrch. (merchant), "
                           "Amt, Curr. Add Ln adds it; Next when done."),
                 ("Rcpt Att.", "Select the receipt PDF from your Workspace Drive. Save mail attachments to Drive "
                               "first. Mandatory."),
                 ("Submit", "Rvw/Sbmt shows the report; Submit for Approval sends it to the approver. Submitted "
                            "reports cannot be changed.")),
        "zh": _h("FinPortal manual (v2.3)", "Travel & expense reports. Mandatory fields are marked *.",
                 ("Create report", "Exp. Rpt → New. Hdr: Bus. Purp., CC/WBS, Trip Fr/To (YYYY-MM-DD), Apprvr."),
                 ("Lines", "Dt, Exp.Cat.Cd, Mrch., Amt, Curr → Add Ln; Next when done."),
                 ("Rcpt Att.", "Select the receipt PDF from Drive (save mail attachments to Drive first)."),
                 ("Submit", "Submit for Approval sends the report to the approver.")),
    },
    "settings": {
        "en": _h("Settings help", "Settings apply to every app in your workspace.",
                 ("Profile", "Change your display name and department, then Save."),
                 ("Language", "Choose English or 中文 and Save; every app switches language."),
                 ("Password", "Enter the current password and the new one twice (at least 8 characters)."),
                 ("Notifications", "Tick how you want to be told about new messages.")),
        "zh": _h("设置帮助", "设置对工作区的所有应用生效。",
                 ("个人资料", "修改显示名称和部门，然后保存。"),
                 ("语言", "选择 English 或中文并保存，所有应用都会切换语言。"),
                 ("密码", "输入当前密码，并输入两次新密码（至少 8 个字符）。"),
                 ("通知", "勾选希望接收新邮件通知的方式。")),
    },
}  # fmt: skip
