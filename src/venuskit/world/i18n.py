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
    "attach_from_computer": ("Attach from computer", "从电脑添加附件"), "upload": ("Upload", "上传"),
    "uploaded": ("File uploaded.", "文件已上传。"), "no_preview": ("No preview for this file.", "此文件无法预览。"),
    "upload_file": ("Upload a file", "上传文件"), "pick_a_file": ("Choose a file first.", "请先选择文件。"),
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
    # extra (short/medium): mail archive, bank saved recipients
    "archive": ("Archive", "归档"), "archived": ("Conversation archived.", "邮件已归档。"),
    "move_to_inbox": ("Move to Inbox", "移到收件箱"), "moved_to_inbox": ("Moved to Inbox.", "已移到收件箱。"),
    "add_recipient": ("Add recipient", "添加收款人"), "send_money": ("Send money", "转账"),
    "payee_added": ("Recipient saved.", "收款人已保存。"),
    "cal_view": ("Calendar view", "日历视图"), "new_event_at": ("New event at {time}", "在 {time} 新建日程"),
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
    # ---- shop ----
    "shop": ("Shop", "商城"), "app_shop_desc": ("Shopping, orders and returns", "购物、订单与退货"),
    "search_shop": ("Search products", "搜索商品"), "categories": ("Categories", "分类"), "all_categories": ("All categories", "全部分类"),
    "cat_electronics": ("Electronics", "电子产品"), "cat_home": ("Home & Kitchen", "家居厨房"), "cat_books": ("Books", "图书"),
    "cat_sports": ("Sports & Outdoors", "运动户外"), "cat_fashion": ("Clothing", "服装"), "cat_office": ("Office", "办公用品"),
    "cart": ("Cart", "购物车"), "orders": ("Your orders", "我的订单"), "top_rated": ("Top rated", "好评推荐"),
    "new_arrivals": ("New arrivals", "新品上架"), "shop_hero": ("Spring picks for home and outdoors", "春季家居与户外精选"),
    "shop_hero_sub": ("Free standard delivery from €50 · free returns for 30 days", "满 €50 免标准运费 · 30 天免费退货"),
    "sort_by": ("Sort by", "排序"), "sort_featured": ("Featured", "综合"), "sort_price_asc": ("Price: low to high", "价格从低到高"),
    "sort_price_desc": ("Price: high to low", "价格从高到低"), "sort_rating": ("Avg. customer review", "评分最高"),
    "sort_newest": ("Newest arrivals", "最新上架"), "min_price": ("Min price €", "最低价 €"), "max_price": ("Max price €", "最高价 €"),
    "in_stock_only": ("In stock only", "仅看有货"), "rating_up": ("{n}★ & up", "{n} 星及以上"), "any_rating": ("Any rating", "不限评分"),
    "apply": ("Apply", "应用"), "clear": ("Clear", "清除"), "n_results": ("{n} results", "共 {n} 件商品"),
    "no_products": ("No products match your search.", "没有符合条件的商品。"), "in_stock": ("In stock", "有货"),
    "low_stock": ("Only {n} left in stock", "仅剩 {n} 件"), "out_of_stock": ("Out of stock", "缺货"),
    "ratings_n": ("{n} ratings", "{n} 条评价"), "qty": ("Quantity", "数量"), "add_to_cart": ("Add to cart", "加入购物车"),
    "added_to_cart": ("Added to cart.", "已加入购物车。"), "in_your_cart": ("{n} in your cart", "购物车中已有 {n} 件"),
    "view_cart": ("View cart", "查看购物车"), "free_returns": ("Free returns within 30 days of delivery", "签收后 30 天内免费退货"),
    "brand": ("Brand", "品牌"), "cart_empty": ("Your cart is empty.", "购物车是空的。"), "subtotal": ("Subtotal", "小计"),
    "shipping": ("Shipping", "运费"), "total": ("Total", "合计"), "to_checkout": ("Proceed to checkout", "去结算"),
    "continue_shopping": ("Continue shopping", "继续购物"), "decrease": ("Decrease quantity", "减少数量"),
    "increase": ("Increase quantity", "增加数量"), "free": ("Free", "免运费"), "checkout": ("Checkout", "结算"),
    "ship_to": ("Shipping address", "收货地址"), "new_address": ("Use a new address", "使用新地址"),
    "street": ("Street and number", "街道门牌"), "city": ("City", "城市"), "postcode": ("Postcode", "邮编"),
    "delivery": ("Delivery", "配送方式"), "ship_standard": ("Standard delivery", "标准配送"),
    "ship_standard_eta": ("3–5 business days · free from €50", "3–5 个工作日 · 满 €50 免运费"), "ship_express": ("Express delivery", "加急配送"),
    "ship_express_eta": ("1–2 business days", "1–2 个工作日"), "ship_nextday": ("Next-day delivery", "次日达"),
    "ship_nextday_eta": ("Order by 18:00, delivered tomorrow", "18:00 前下单，明天送达"), "payment": ("Payment method", "支付方式"),
    "pay_visa": ("Visa ending in 4821", "Visa 尾号 4821"), "pay_mastercard": ("Mastercard ending in 0937", "Mastercard 尾号 0937"),
    "pay_invoice": ("Invoice (pay within 14 days)", "发票支付（14 天内付款）"), "place_order": ("Place order", "提交订单"),
    "order_summary": ("Order summary", "订单摘要"), "items_n": ("Items ({n})", "商品（{n} 件）"),
    "address_incomplete": ("Fill in name, street, city and postcode for the new address.", "请填写新地址的姓名、街道、城市和邮编。"),
    "not_enough_stock": ("Not enough stock for {name}.", "{name} 库存不足。"), "choose_options": ("Choose an address, a delivery option and a payment method.", "请选择收货地址、配送方式和支付方式。"),
    "order_placed": ("Thank you! Your order has been placed.", "谢谢！订单已提交。"), "order_n": ("Order #{n}", "订单 #{n}"),
    "placed_on": ("Order placed", "下单日期"), "status": ("Status", "状态"), "st_processing": ("Processing", "处理中"),
    "st_shipped": ("Shipped", "已发货"), "st_delivered": ("Delivered", "已送达"), "delivered_on": ("Delivered {date}", "{date} 已送达"),
    "no_orders": ("You have no orders yet.", "还没有订单。"), "buy_again": ("Buy it again", "再次购买"),
    "return_items": ("Return items", "申请退货"), "return_until": ("Return window open until {date}", "可退货至 {date}"),
    "return_closed": ("Return window closed", "已过退货期"), "return_requested": ("Return requested", "已申请退货"),
    "view_order": ("View order", "查看订单"), "return_title": ("Return items from order #{n}", "退货：订单 #{n}"),
    "which_item": ("Which item are you returning?", "要退哪件商品？"), "return_reason": ("Why are you returning it?", "退货原因"),
    "reason_damaged": ("Arrived damaged", "商品损坏"), "reason_wrong_item": ("Wrong item was sent", "发错商品"),
    "reason_doesnt_fit": ("Doesn't fit", "尺码不合适"), "reason_not_needed": ("No longer needed", "不再需要"),
    "reason_not_as_described": ("Not as described", "与描述不符"), "return_comment": ("Comments (optional)", "补充说明（选填）"),
    "request_return": ("Request return", "提交退货申请"), "return_done": ("Return requested. We'll email you a return label.", "退货申请已提交，退货标签将通过邮件发送给你。"),
    "return_choose": ("Choose an item and a reason.", "请选择商品和退货原因。"), "return_not_open": ("This order can no longer be returned.", "该订单已无法退货。"),
    "ship_method": ("Delivery", "配送方式"), "paid_with": ("Paid with", "支付方式"), "items": ("Items", "商品"),
    "each": ("each", "每件"), "deliver_to": ("Deliver to", "收货人"),
    # ---- forum ----
    "forum": ("Forum", "论坛"), "app_forum_desc": ("Groups, posts and comments", "小组、帖子与评论"),
    "search_forum": ("Search posts", "搜索帖子"), "feed": ("Home feed", "首页动态"), "discover": ("Discover groups", "发现小组"),
    "your_groups": ("Your groups", "我的小组"), "members_n": ("{n} members", "{n} 位成员"), "join": ("Join", "加入"),
    "joined": ("Joined", "已加入"), "leave": ("Leave group", "退出小组"), "new_post": ("New post", "发帖"),
    "post_title": ("Title", "标题"), "post_body": ("What do you want to share?", "想分享些什么？"), "publish": ("Post", "发布"),
    "posting_in": ("Posting in {group}", "发布到 {group}"), "join_to_post": ("Join this group to post.", "加入小组后才能发帖。"),
    "post_published": ("Your post is live.", "帖子已发布。"), "post_needs_title": ("Give your post a title.", "请填写帖子标题。"),
    "comments": ("Comments", "评论"), "comments_n": ("{n} comments", "{n} 条评论"), "write_comment": ("Write a comment…", "写评论…"),
    "comments_1": ("1 comment", "1 条评论"), "comment": ("Comment", "评论"), "comment_added": ("Comment added.", "评论已发布。"), "sort_new": ("New", "最新"),
    "sort_top": ("Top", "最热"), "no_posts": ("No posts yet. Be the first!", "还没有帖子，来发第一帖吧！"),
    "delete_post": ("Delete post", "删除帖子"), "delete_post_q": ("Delete this post?", "确定删除这条帖子？"),
    "delete_post_warn": ("The post and its comments will be removed for everyone. This cannot be undone.", "帖子及其评论将对所有人删除，且无法恢复。"),
    "post_deleted": ("Post deleted.", "帖子已删除。"), "r_like": ("Like", "赞"), "r_love": ("Love", "爱心"), "r_funny": ("Funny", "好笑"),
    "r_insightful": ("Insightful", "有启发"), "r_celebrate": ("Celebrate", "庆祝"), "no_posts_found": ("No posts match your search.", "没有符合条件的帖子。"),
    "group_joined": ("You joined the group.", "已加入小组。"), "group_left": ("You left the group.", "已退出小组。"),
    "all_groups": ("All groups", "全部小组"), "you": ("You", "你"), "comment_empty": ("Write something first.", "请先输入评论内容。"),
    "reactions_n": ("{n} reactions", "{n} 个回应"), "about_group": ("About", "简介"),
    # reviews and notifications
    "customer_reviews": ("Customer reviews", "用户评价"),
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
