# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""Help pages: what each app can do, in English and Chinese. Capability catalogs start from these."""

from __future__ import annotations

from typing import Any


def _h(title: str, intro: str, *sections: tuple[str, str]) -> dict[str, Any]:
    return {"title": title, "intro": intro, "sections": list(sections)}


HELP: dict[str, dict[str, dict[str, Any]]] = {
    "mail": {
        "en": _h("Mail help", "Mail keeps your conversations in folders: Inbox, Starred, Sent, Drafts, Archive and Trash.",
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
                 ("Star, archive and delete", "Star marks a message as important. Archive moves it out of the "
                                              "Inbox into Archive ('Move to Inbox' brings it back). Delete moves it "
                                              "to Trash; in Trash you can Restore it or Delete forever.")),
        "zh": _h("邮件帮助", "邮件按文件夹整理：收件箱、已加星标、已发送、草稿箱、归档和已删除。",
                 ("阅读", "点击文件夹中的邮件即可打开，打开后标为已读；“标为未读”可撤销。"),
                 ("搜索", "在顶部搜索框输入后按回车。搜索范围包括发件人、收件人、主题和正文，不含“已删除”。"),
                 ("写邮件", "点击“写邮件”，填写收件人（多个地址用逗号分隔）、抄送、主题和正文，然后点击“发送”。“存草稿”会保存到草稿箱，打开草稿可继续编辑。"),
                 ("回复与转发", "打开邮件后点击“回复”或“转发”。转发会保留附件（取消勾选即可去掉）。"),
                 ("附件", "附件显示在正文下方：“查看”用文档查看器打开，“保存到云盘”会在云盘中保存一份。写邮件时展开“从云盘添加附件”并勾选文件即可添加附件。"),
                 ("星标、归档与删除", "星标用于标记重要邮件。“归档”会把邮件移出收件箱放入“归档”（“移到收件箱”可移回）。“删除”会移到“已删除”，在那里可以“恢复”或“永久删除”。")),
    },
    "drive": {
        "en": _h("Drive help", "Drive stores your files: PDFs, documents and spreadsheets.",
                 ("Browse", "My Drive lists every file by folder; Recent sorts by last change; Starred and Trash filter."),
                 ("Search", "The search box finds files by name and by the text inside them."),
                 ("Open", "PDFs open in the viewer (scroll to read every page). Documents open in the editor, "
                          "spreadsheets in the grid; change the text or cells and click Save."),
                 ("Create", "New → New document or New spreadsheet creates an untitled file; rename it in the title box."),
                 ("Star and delete", "The star icon on a row stars a file (click again to unstar); Starred lists "
                                     "them. The bin icon moves the file to Trash; restore it from Trash.")),
        "zh": _h("云盘帮助", "云盘保存你的文件：PDF、文档和表格。",
                 ("浏览", "“我的云盘”按文件夹列出所有文件；“最近”按修改时间排序；“已加星标”和“回收站”用于筛选。"),
                 ("搜索", "搜索框可按文件名和文件内容查找。"),
                 ("打开", "PDF 在查看器中打开（滚动阅读所有页）。文档在编辑器中打开，表格在网格中打开；修改后点击“保存”。"),
                 ("新建", "“新建”→“新建文档”或“新建表格”会创建无标题文件，可在标题框中重命名。"),
                 ("星标与删除", "点击行尾的星形图标可为文件加星标（再点一次取消），“已加星标”会列出它们。点击垃圾桶图标会把文件移到回收站，可在回收站中恢复。")),
    },
    "calendar": {
        "en": _h("Calendar help", "Calendar shows your meetings and invitations by month, week or day.",
                 ("Views", "Switch between Month, Week and Day with the buttons at the top right (or in the menu). "
                           "Week and Day place each event at its time, as tall as it lasts; click a day's name in "
                           "the week to open that day."),
                 ("Navigate", "Use the arrows to go to the previous or next month, week or day, and Today to come back."),
                 ("Create", "Click New event (or a day number in the month, or an empty hour in the week or day "
                            "view, which fills in that time), enter title, date (YYYY-MM-DD), start and end "
                            "(HH:MM), location and guests, then Save."),
                 ("Edit and delete", "Open an event, then Edit or Delete."),
                 ("Invitations", "Invitations awaiting your reply are listed on the left and drawn with a dashed "
                                 "border; open one and click Accept or Decline.")),
        "zh": _h("日历帮助", "日历可按月、周或日显示你的会议和邀请。",
                 ("视图", "用右上角的“月”“周”“日”按钮（或菜单）切换视图。周视图和日视图按时间摆放日程，高度对应时长；在周视图中点击某天的名称可打开该日。"),
                 ("浏览", "用箭头切换到上一个或下一个月、周或日，点击“今天”返回。"),
                 ("新建", "点击“新建日程”（或月视图中某天的日期，或周/日视图中的空白时段，会自动填入该时间），填写标题、日期（YYYY-MM-DD）、开始和结束时间（HH:MM）、地点和参与者，然后保存。"),
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
                 ("Saved recipients", "Saved recipients lists the people you pay; add one with name and IBAN. "
                                      "'Send money' next to a recipient opens a transfer to them."),
                 ("Transfers", "Transfer → choose the account, a saved recipient or a new one (name and IBAN), the "
                               "amount and a reference text → Continue → check → Confirm transfer. A confirmed "
                               "transfer cannot be undone.")),
        "zh": _h("银行帮助", "网上银行：活期、储蓄和信用卡账户。",
                 ("账户", "总览显示各账户余额和最近交易；点击账户可查看完整记录。"),
                 ("查找交易", "在账户页可按描述或参考号搜索，按日期（YYYY-MM-DD）和收支筛选，点击一行查看详情。"),
                 ("对账单", "对账单按月列出期初和期末余额。"),
                 ("常用收款人", "“常用收款人”列出你转账的对象；填写姓名和 IBAN 即可添加。点击收款人旁的“转账”会直接打开给他的转账。"),
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
    # ---- shop ----
    "shop": {
        "en": _h("Shop help", "Shop sells electronics, home goods, books, sports gear, clothing and office supplies, "
                              "delivered to your door.",
                 ("Find products", "Type in the search box at the top and press Enter, or pick a category on the left. "
                                   "On the results page, sort by price, rating or newest, and filter by price range, "
                                   "stock and minimum rating; press Apply."),
                 ("Product page", "Click a product for its price, rating, stock and description. Set the quantity and "
                                  "click 'Add to cart'."),
                 ("Cart", "The cart button (top right, or Cart in the menu) lists what you picked. Use − and + to "
                          "change quantities, Remove to take an item out."),
                 ("Checkout", "Proceed to checkout, choose a saved address or 'Use a new address' (name, street, city, "
                              "postcode), a delivery option (Standard, free from €50; Express; Next-day) and a payment "
                              "method (saved Visa or Mastercard, or Invoice). 'Place order' buys: it cannot be undone "
                              "here. Gift cards and cash on delivery are not accepted."),
                 ("Orders and returns", "Your orders lists every order with its number, date, status and total. Open "
                                        "one for its items and costs; 'Buy it again' puts an item back in the cart. "
                                        "Delivered items can be returned for 30 days: Return items → choose the item "
                                        "and a reason → Request return.")),
        "zh": _h("商城帮助", "商城销售电子产品、家居厨房、图书、运动户外、服装和办公用品，送货上门。",
                 ("查找商品", "在顶部搜索框输入后按回车，或在左侧选择分类。在结果页可按价格、评分或上架时间排序，并按价格区间、是否有货和最低评分筛选，然后点击“应用”。"),
                 ("商品详情", "点击商品查看价格、评分、库存和介绍。设置数量后点击“加入购物车”。"),
                 ("购物车", "右上角的购物车按钮（或菜单中的“购物车”）列出已选商品。用 − 和 + 修改数量，“移除”可删除商品。"),
                 ("结算", "点击“去结算”，选择已保存的地址或“使用新地址”（姓名、街道、城市、邮编）、配送方式（标准配送满 €50 免运费、加急配送、次日达）和支付方式（已保存的 Visa 或 Mastercard，或发票支付）。点击“提交订单”即完成购买，无法在此撤销。不支持礼品卡和货到付款。"),
                 ("订单与退货", "“我的订单”列出每个订单的编号、日期、状态和金额。打开订单可查看商品和费用；“再次购买”会把商品放回购物车。已送达的商品可在 30 天内退货：申请退货 → 选择商品和原因 → 提交退货申请。")),
    },
    # ---- forum ----
    "forum": {
        "en": _h("Forum help", "Forum is where people meet in interest groups to share posts, comment and react.",
                 ("Groups", "Your groups are listed on the left; 'Discover groups' shows all of them. Open a group and "
                            "click Join to follow it, or 'Leave group' to stop."),
                 ("Read", "The home feed shows the newest posts from your groups (switch to Top for the most reacted). "
                          "Search finds posts by title and text in every group."),
                 ("Post", "In a group you joined, click 'New post', give it a title and a text, then Post."),
                 ("Comment and react", "Open a post to read its comments. Write in the comment box and click Comment. "
                                       "The reaction buttons (Like, Love, Funny, Insightful, Celebrate) add your "
                                       "reaction; click another one to change it, or the same one to take it back."),
                 ("Delete", "Open one of your own posts and click 'Delete post', then confirm. Deleting removes its "
                            "comments too and cannot be undone.")),
        "zh": _h("论坛帮助", "论坛是大家按兴趣小组交流的地方：发帖、评论和回应。",
                 ("小组", "左侧列出你加入的小组；“发现小组”显示全部小组。打开小组点击“加入”即可关注，点击“退出小组”取消。"),
                 ("浏览", "首页动态显示你所在小组的最新帖子（切换到“最热”按回应数排序）。搜索可按标题和正文查找所有小组的帖子。"),
                 ("发帖", "在已加入的小组中点击“发帖”，填写标题和正文后点击“发布”。"),
                 ("评论与回应", "打开帖子查看评论。在评论框输入内容后点击“评论”。回应按钮（赞、爱心、好笑、有启发、庆祝）用于添加你的回应；点击其他按钮可更换，再次点击同一按钮可取消。"),
                 ("删除", "打开你自己的帖子，点击“删除帖子”并确认。删除会同时移除评论，且无法恢复。")),
    },
}  # fmt: skip
