"""What every desktop starts from: the window manager's configuration and the home folder's skeleton.

Choices that make screenshots reproducible are made here: no blinking text cursor and no animations (a
screenshot must not depend on when it was taken), fixed fonts, the file path out of the editor's title (the home
folder's path differs per env), session restore off (apps are killed at every reset, which they would otherwise
take for a crash to recover from).
"""

from __future__ import annotations

import json

_BINDS_FOCUS = '<action name="Focus"/><action name="Raise"/>'
_CLIENT_MENU = '<action name="ShowMenu"><menu>client-menu</menu></action>'
_RESIZE_EDGES = "".join(
    f'    <context name="{edge.capitalize()}"><mousebind button="Left" action="Drag">'
    f'<action name="Resize"><edge>{edge}</edge></action></mousebind></context>\n'
    for edge in ("top", "left", "right", "bottom")
)
_BUTTONS = "".join(
    f'    <context name="{ctx}"><mousebind button="Left" action="Click"><action name="{action}"/></mousebind>'
    "</context>\n"
    for ctx, action in (("AllDesktops", "ToggleOmnipresent"), ("Shade", "ToggleShade"), ("Iconify", "Iconify"),
                        ("Maximize", "ToggleMaximize"), ("Close", "Close"))
)

# @MENU@ becomes the menu file's absolute path (openbox would look for a relative one in the home folder).
OPENBOX_RC = f"""<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <resistance><strength>0</strength><screen_edge_strength>0</screen_edge_strength></resistance>
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse><focusLast>yes</focusLast></focus>
  <placement><policy>Smart</policy><center>yes</center></placement>
  <theme>
    <name>Clearlooks</name><titleLayout>NLIMC</titleLayout><keepBorder>yes</keepBorder>
    <animateIconify>no</animateIconify>
    <font place="ActiveWindow"><name>DejaVu Sans</name><size>9</size><weight>Bold</weight></font>
    <font place="InactiveWindow"><name>DejaVu Sans</name><size>9</size><weight>Bold</weight></font>
    <font place="MenuHeader"><name>DejaVu Sans</name><size>9</size></font>
    <font place="MenuItem"><name>DejaVu Sans</name><size>10</size></font>
  </theme>
  <desktops><number>1</number><firstdesk>1</firstdesk><names><name>Desktop</name></names></desktops>
  <resize><drawContents>yes</drawContents><popupShow>Never</popupShow></resize>
  <keyboard>
    <keybind key="A-Tab"><action name="NextWindow"><dialog>none</dialog>
      <finalactions><action name="Focus"/><action name="Raise"/><action name="Unshade"/></finalactions>
    </action></keybind>
    <keybind key="A-F4"><action name="Close"/></keybind>
  </keyboard>
  <mouse>
    <dragThreshold>3</dragThreshold><doubleClickTime>400</doubleClickTime><screenEdgeWarpTime>0</screenEdgeWarpTime>
    <context name="Frame">
      <mousebind button="A-Left" action="Press">{_BINDS_FOCUS}</mousebind>
      <mousebind button="A-Left" action="Drag"><action name="Move"/></mousebind>
    </context>
    <context name="Titlebar">
      <mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Titlebar Top Right Bottom Left TLCorner TRCorner BRCorner BLCorner">
      <mousebind button="Left" action="Press">{_BINDS_FOCUS}<action name="Unshade"/></mousebind>
      <mousebind button="Right" action="Press">{_BINDS_FOCUS}{_CLIENT_MENU}</mousebind>
    </context>
{_RESIZE_EDGES}    <context name="TRCorner BRCorner TLCorner BLCorner">
      <mousebind button="Left" action="Drag"><action name="Resize"/></mousebind>
    </context>
    <context name="Client">
      <mousebind button="Left" action="Press">{_BINDS_FOCUS}</mousebind>
      <mousebind button="Middle" action="Press">{_BINDS_FOCUS}</mousebind>
      <mousebind button="Right" action="Press">{_BINDS_FOCUS}</mousebind>
    </context>
    <context name="Icon"><mousebind button="Left" action="Press">{_BINDS_FOCUS}{_CLIENT_MENU}</mousebind></context>
{_BUTTONS}
    <context name="Root">
      <mousebind button="Right" action="Press"><action name="ShowMenu"><menu>root-menu</menu></action></mousebind>
      <mousebind button="Middle" action="Press">
        <action name="ShowMenu"><menu>client-list-combined-menu</menu></action>
      </mousebind>
    </context>
  </mouse>
  <menu><file>@MENU@</file><hideDelay>200</hideDelay><middle>no</middle><showIcons>no</showIcons></menu>
  <applications/>
</openbox_config>
"""

GTK3_SETTINGS = """[Settings]
gtk-theme-name=Adwaita
gtk-icon-theme-name=Adwaita
gtk-font-name=DejaVu Sans 10
gtk-cursor-blink=false
gtk-enable-animations=false
gtk-primary-button-warps-slider=false
gtk-recent-files-enabled=true
"""

GTK2_RC = """gtk-theme-name="Adwaita"
gtk-icon-theme-name="Adwaita"
gtk-font-name="DejaVu Sans 10"
gtk-cursor-blink=0
"""

# GSettings through the keyfile backend (GSETTINGS_BACKEND=keyfile): one plain file tasks can set up and check.
GSETTINGS_KEYFILE = """[org/xfce/mousepad/preferences/window]
path-in-title=false
statusbar-visible=true
remember-size=false
remember-state=false

[org/xfce/mousepad/preferences/file]
session-restore='never'
autosave-timer=uint32 0

[org/gnome/gnumeric/core/gui/toolbars]
"""

LIBFM_CONF = """[config]
single_click=0
use_trash=1
confirm_del=1
confirm_trash=1
terminal=xterm
thumbnail_local=0
show_internal_volumes=0

[ui]
big_icon_size=48
small_icon_size=16
pane_icon_size=16
thumbnail_size=128
show_thumbnail=0
"""

PCMANFM_CONF = """[config]
bm_open_method=0

[ui]
always_show_tabs=0
hide_close_btn=0
win_width=900
win_height=600
side_pane_mode=places
view_mode=list
show_hidden=0
sort=name;ascending;
toolbar=newwin;newtab;navigation;home;
show_statusbar=1
pathbar_mode_buttons=0
"""

# Which app opens a file from the file manager (a fresh account would ask every time).
MIMEAPPS = """[Default Applications]
text/plain=org.xfce.mousepad.desktop
text/x-log=org.xfce.mousepad.desktop
text/markdown=org.xfce.mousepad.desktop
application/x-shellscript=org.xfce.mousepad.desktop
text/csv=gnumeric.desktop
application/x-gnumeric=gnumeric.desktop
application/vnd.openxmlformats-officedocument.spreadsheetml.sheet=gnumeric.desktop
image/png=gpicview.desktop
image/jpeg=gpicview.desktop
inode/directory=pcmanfm.desktop
"""

BASHRC = """PS1='user@desktop:\\w\\$ '
HISTFILE=~/.bash_history
"""

# relative path -> content; folders a fresh account has are listed with content None
# The web browser's profile as it starts: no offer to translate a page in another language than its own (the
# world's Chinese pages), downloads straight into ~/Downloads without asking, no first-run screens.
CHROMIUM_PREFERENCES = json.dumps({
    "translate": {"enabled": False}, "download": {"prompt_for_download": False, "directory_upgrade": True},
    "browser": {"has_seen_welcome_page": True, "check_default_browser": False},
    "profile": {"exit_type": "Normal", "exited_cleanly": True}, "download_bubble": {"partial_view_enabled": False},
})  # fmt: skip

HOME_SKELETON: dict[str, str | None] = {
    ".config/gtk-3.0/settings.ini": GTK3_SETTINGS,
    ".gtkrc-2.0": GTK2_RC,
    ".bashrc": BASHRC,
    ".config/mimeapps.list": MIMEAPPS,
    ".config/glib-2.0/settings/keyfile": GSETTINGS_KEYFILE,
    ".config/libfm/libfm.conf": LIBFM_CONF,
    ".config/pcmanfm/default/pcmanfm.conf": PCMANFM_CONF,
    ".config/chromium/Default/Preferences": CHROMIUM_PREFERENCES,
    ".config/chromium/First Run": "",
    "Desktop": None,
    "Documents": None,
    "Downloads": None,
    "Pictures": None,
    "Templates": None,
}
