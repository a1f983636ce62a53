"""A Streamlit app of the tests' own, made only of Streamlit's own widgets (its baseweb selectbox,
multiselect, text area, file uploader, download button, form and dialog), so goalbot meets the
React and websocket front end every Streamlit app has.

Whatever a person does here is appended, one JSON object a line, to the file named by
GOALBOT_STREAMLIT_STATE: that file is the app's state the tests judge by."""

from __future__ import annotations

import datetime
import json
import os
import threading
from pathlib import Path
from typing import Any

import streamlit as st

STATE = Path(os.environ["GOALBOT_STREAMLIT_STATE"])
_WRITING = threading.Lock()  # every browser tab's script runs in a thread of the same process

COUNTRIES = [
    "Afghanistan", "Albania", "Algeria", "Argentina", "Armenia", "Australia", "Austria", "Bangladesh",
    "Belgium", "Bolivia", "Brazil", "Bulgaria", "Cambodia", "Canada", "Chile", "China", "Colombia",
    "Croatia", "Cuba", "Czechia", "Denmark", "Ecuador", "Egypt", "Estonia", "Ethiopia", "Finland",
    "France", "Georgia", "Germany", "Ghana", "Greece", "Hungary", "Iceland", "India", "Indonesia",
    "Ireland", "Israel", "Italy", "Japan", "Kenya", "Latvia", "Lithuania", "Mexico", "Mongolia",
    "Morocco", "Nepal", "Netherlands", "Norway", "Peru", "Poland", "Portugal", "Romania",
    "South Korea", "Spain", "Sweden", "Thailand", "Turkey", "Ukraine", "Uruguay", "Vietnam",
]
TOPICS = ["날씨", "교통", "환경", "경제", "문화", "스포츠", "과학", "건강"]


def record(kind: str, **data: Any) -> None:
    line = json.dumps({"kind": kind, "at": datetime.datetime.now().isoformat(), **data}, ensure_ascii=False)
    with _WRITING, STATE.open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def report_csv() -> str:
    return "country,visitors\n" + "".join(f"{name},{len(name) * 7}\n" for name in COUNTRIES[:5])


@st.dialog("초대 확인")  # "confirm the invitation"
def invitation() -> None:
    st.write("Invite the 여행 클럽 to this week's meeting?")
    if st.button("Yes, invite them"):
        record("invited", club="여행 클럽")
        st.rerun()


st.set_page_config(page_title="여행 보고서", layout="wide")
st.title("여행 보고서 (Travel report)")
left, right = st.columns(2)  # side by side, every widget is in view without scrolling

with left, st.form("trip"):
    st.subheader("Trip form")
    name = st.text_input("이름 (Name)")
    country = st.selectbox("Country", COUNTRIES, index=None, placeholder="Choose a country")
    notes = st.text_area("메모 (Notes)")
    if st.form_submit_button("Save trip"):
        record("trip", name=name, country=country, notes=notes)
        st.success(f"Saved the trip of {name} to {country}.")

with right:
    picker, save = st.columns([3, 1], vertical_alignment="bottom")  # the open list never covers the button
    topics = picker.multiselect("관심 주제 (Topics)", TOPICS, placeholder="Pick topics")
    if save.button("Save topics"):
        record("topics", topics=topics)
        st.success(f"Saved {len(topics)} topics.")

    photo = st.file_uploader("사진 (Photo)")
    if photo is not None:
        content = photo.getvalue()
        marker = f"{photo.name}:{len(content)}"
        if st.session_state.get("uploaded") != marker:  # every rerun sees the file again; it came once
            st.session_state["uploaded"] = marker
            record("upload", name=photo.name, size=len(content), text=content.decode("utf-8", "replace"))
        st.write(f"Received {photo.name} ({len(content)} bytes).")

    st.download_button("Download report", report_csv(), file_name="report.csv", mime="text/csv",
                       on_click=lambda: record("download", file="report.csv", content=report_csv()))
    if st.button("Invite the club"):
        invitation()
    if st.button("Delete everything"):
        record("deleted_everything")
        st.warning("Everything was deleted.")
