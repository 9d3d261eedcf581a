"""The rule keypoint splitter (verify/keypoints.py) on goal shapes it used to get wrong: a name with an initial cut
into two sentences, a scene sentence that lists quoted names after a colon kept as a keypoint no trajectory can meet,
and Chinese goals left whole (one keypoint holding every step, so one typed value could credit all of them)."""

from __future__ import annotations

from venuskit.verify.keypoints import split_goal


def test_an_initial_ends_no_sentence():
    """Before: "approver D. Kim" split the goal after "D." into two keypoints, neither of them the goal's."""
    goal = 'Prepare an expense report: purpose "Office chairs", approver D. Kim, with one line: 229.00 EUR.'
    assert split_goal(goal) == [goal.rstrip(".")]
    assert split_goal("Email Dr. Lee the slides. Reply to Ann.") == ["Email Dr. Lee the slides", "Reply to Ann"]


def test_a_scene_sentence_that_lists_quoted_names_goes_with_the_request():
    """Before: the colon kept "X wrote two posts: "A" and "B"" as a keypoint of its own (never met: `uncertain`)."""
    points = split_goal('Ethan wrote two posts: "Day 1" and "Results". Give both a Like.')
    assert points == ['Give both a Like (Ethan wrote two posts: "Day 1" and "Results")']
    # a colon that introduces a request is still one
    assert split_goal("Handle the email: save the agenda to Drive. Reply to Ann.")[0].startswith("Handle the email")


def test_chinese_coordinated_steps_are_keypoints_of_their_own():
    """Before: each of these goals was one keypoint (Chinese was split only at 。！？)."""
    assert split_goal("把邮件“会议门票”的附件保存到云盘，然后在云盘中打开确认。") == [
        "把邮件“会议门票”的附件保存到云盘", "在云盘中打开确认"]
    assert split_goal("在商城里找到“保温壶”，加一件到购物车，先不要下单。") == [
        "在商城里找到“保温壶”", "加一件到购物车", "先不要下单"]
    # a colon header goes with the first step; "并" and "然后" join steps; a value after "要求：" is no step
    assert split_goal("处理苏菲的邮件：把议程保存到云盘，在日历中接受邀请，并在备注中写上出发时间，然后回复告知饮食要求：素食。") == [
        "把议程保存到云盘 (处理苏菲的邮件)", "在日历中接受邀请", "在备注中写上出发时间", "回复告知饮食要求：素食"]


def test_chinese_commas_that_join_no_steps_do_not_split():
    # values of one step, a condition before its step, a list inside brackets: one keypoint each
    one = "把云盘文件“路线图.docx”作为附件发给 min@x.example，邮件主题为“路线图”。"
    assert split_goal(one) == [one.rstrip("。")]
    assert split_goal("在有货的结果中，把最便宜的一件加入购物车。")[0] == "在有货的结果中，把最便宜的一件加入购物车"
    # a noun that starts with a one-character verb ("发票" is an invoice, not "send") starts no step
    assert split_goal("把礼盒寄给王芳，选次日达，发票支付。") == ["把礼盒寄给王芳，选次日达，发票支付"]
    assert split_goal("把会议加入日历（标题、地点，两位受邀人作为参与者，拨入码写在备注里）。") == [
        "把会议加入日历（标题、地点，两位受邀人作为参与者，拨入码写在备注里）"]


def test_a_chinese_scene_sentence_is_context_of_the_request():
    """Before: "X通过邮件邀请你…" was a keypoint of its own, which no trajectory meets."""
    assert split_goal("赵雪通过邮件邀请你参加会议。请把会议加入日历，然后“全部回复”确认你会参加。") == [
        "请把会议加入日历 (赵雪通过邮件邀请你参加会议)", "“全部回复”确认你会参加"]
    assert split_goal("你误删了邮件“租约”。把它恢复到收件箱。") == ["把它恢复到收件箱 (你误删了邮件“租约”)"]
    # "你需要…" asks for something: a keypoint, not a scene
    assert len(split_goal("你需要把密码改为“abc”。然后回复 IT。")) == 2
    # a chain of scenes: what someone did, then where a fact is written, before the polite request
    assert split_goal("周敏在论坛提问“野餐几点集合？”。时间写在高远的帖子“周日野餐安排”里。请在周敏的帖子下评论，告诉对方集合时间。") == [
        "请在周敏的帖子下评论，告诉对方集合时间 (周敏在论坛提问“野餐几点集合？”; 时间写在高远的帖子“周日野餐安排”里)"]
    # what someone did (了) before a request that opens with its verb; a scene before a scene
    assert split_goal("陈晨在邮件中建议了复盘会的时间。把它加到日历中，然后回复确认。") == [
        "把它加到日历中 (陈晨在邮件中建议了复盘会的时间)", "回复确认"]
    assert split_goal("经理发邮件请你报销广州出差。发票都在云盘的 PDF“票据”里。请在 FinPortal 中填写报销单并提交。") == [
        "请在 FinPortal 中填写报销单并提交 (经理发邮件请你报销广州出差; 发票都在云盘的 PDF“票据”里)"]
    # a sentence that opens with 请 asks, and a statement before a request with no 请 stays a keypoint
    assert len(split_goal("请查看活期账户：扣款出现了两次。给客服发邮件申请退款。")) == 2
    assert len(split_goal("预算表的 B2 应为 3600。把表格发给王芳。")) == 2
    assert len(split_goal("预算表的 B2 应为 3600。请把表格发给王芳。")) == 2  # a modal asks


def test_then_starts_a_step_whatever_its_verb():
    """Before: ", then react with Celebrate" stayed in the switch's keypoint ("react" is in no verb list), so the rule
    that proved the switch satisfied both steps, and a run that never reacted was `completed`. After "then" any
    word that can start an imperative starts a step, as 然后 does in Chinese; a sentence that goes on does not."""
    assert split_goal('Turn on push notifications, then react with Celebrate to "Lunch".') == [
        "Turn on push notifications", 'React with Celebrate to "Lunch"']
    assert split_goal('Delete your post "Carpool", then request a return of order #7.') == [
        'Delete your post "Carpool"', "Request a return of order #7"]
    assert split_goal("Pay the invoice, then the total is settled.") == ["Pay the invoice, then the total is settled"]


def test_but_only_with_a_verb_is_a_step_of_its_own():
    """Before: ", but only save it as a draft" stayed inside the writing keypoint, so a run that typed the mail and
    never saved it was `completed` on the typed text alone (three such runs in the judge's training set). The saving
    is a keypoint of its own, read as the act; ", but" before a noun or a prohibition starts no step."""
    goal = 'Write an email to a@b.example with the subject "Hi" saying 12.40, but only save it as a draft.'
    assert split_goal(goal) == ['Write an email to a@b.example with the subject "Hi" saying 12.40', "Save it as a draft"]
    assert split_goal("Take the mug out of your cart, but keep the towel.") == [
        "Take the mug out of your cart, but keep the towel"]
    assert split_goal('Put "X" in my cart, but do not order it yet.') == ['Put "X" in my cart, but do not order it yet']


def test_then_and_a_place_before_the_verb_is_a_step_of_its_own():
    """Before: ", then in the spreadsheet "X", set cell C4 to …" stayed inside the first keypoint (its first word,
    "in", starts no imperative), so a run that only made the document had every keypoint of the goal satisfied. A
    place put before the next step's verb still starts that step; "then in the end the total is due" starts none."""
    goal = ('Create a document titled "Demo" containing the amount of the invoice, then in the spreadsheet '
            '"Costs.xlsx", set cell C4 to that amount and save.')  # fmt: skip
    assert split_goal(goal) == ['Create a document titled "Demo" containing the amount of the invoice',
                                'In the spreadsheet "Costs.xlsx", set cell C4 to that amount, then save']  # fmt: skip
    assert split_goal("Pay the invoice, then in the end the total is due.") == [
        "Pay the invoice, then in the end the total is due"]


def test_an_adverb_of_sequence_before_the_next_verb_still_starts_a_step():
    """Before: ", and finally post in the group …" stayed inside the quantity change before it ("finally" is no
    verb), one keypoint asking for two acts that no rule decides. The adverb goes; the step is its own keypoint."""
    goal = ('Change the quantity of the Desk Plant in your cart from one to two, and finally post in the "Trail '
            'Runners" group with the title "Hi" and the text "Yo".')  # fmt: skip
    assert split_goal(goal) == ["Change the quantity of the Desk Plant in your cart from one to two",
                                'Post in the "Trail Runners" group with the title "Hi" and the text "Yo"']  # fmt: skip
    assert split_goal("Buy milk, and also eggs.") == ["Buy milk, and also eggs"]


def test_a_sentence_that_only_moves_the_view_before_a_question_is_its_context():
    """Before: "把日历切换到周视图并翻到下一周" was a keypoint no rule decides, so a right answer stayed `uncertain`."""
    zh = split_goal("把日历切换到周视图并翻到下一周。“合作伙伴研讨会”几点结束？请用 HH:MM 格式回答。")
    assert zh == ["Answer: “合作伙伴研讨会”几点结束？ (把日历切换到周视图并翻到下一周) (请用 HH:MM 格式回答)"], zh
    en = split_goal('Switch the calendar to the month view, then go to next month. When is "Offsite"? Answer with the date.')
    assert len(en) == 1 and en[0].startswith('Answer: When is "Offsite"?'), en
    # before a request it is a step (the request may need that view), and a view move with more to it is one too
    assert split_goal('Go to next week and delete "Standup".') == ["Go to next week", 'Delete "Standup"']
    assert len(split_goal("Go to next week and star the first event. Who organises it?")) == 3
