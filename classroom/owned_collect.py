"""nbgrader's collect step, taking only the submissions a student made themselves.

nbgrader files a submission under the name in its folder's name
(``exchange/<course>/inbound/<student>+<assignment>+<time>+<random>``), and the inbound folder is
writable by every student (mode 2733). Its ``collect`` compares the folder's Unix owner with that
name, but only warns (``CollectApp.check_owner``) and collects the submission anyway: a student
who writes a folder named for another student, with a later time, replaces the other student's
work in the gradebook. ``make test-hub-real`` made that attack. This collector leaves out every
submission whose owner is not the student it names (and says so in the log), so each student is
graded on what they submitted themselves.

The course's ``nbgrader_config.py`` selects it (``c.ExchangeFactory.collect``; written by
``scripts/nbgrader_course.py``). Written against nbgrader 0.9.6 (``classroom/requirements.txt``
pins it): ``init_src`` is nbgrader's own with the owner check added.
"""

from __future__ import annotations

import glob
import os
import pwd
from collections import defaultdict
from typing import Any

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect


def owner_of(path: str) -> str:
    """The login name owning ``path`` (``"uid N"`` for a uid without an account)."""
    uid = os.lstat(path).st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class OwnedCollect(ExchangeCollect):  # type: ignore[misc]  # nbgrader is untyped
    """``ExchangeCollect`` that skips a submission not owned by the student it names."""

    def init_src(self) -> None:
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        by_student: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            owner = owner_of(path)
            if owner != record["username"]:
                self.log.warning(
                    "%s claims to be %s's submission but belongs to %s: not collected", path, record["username"], owner
                )
                continue
            by_student[record["username"]].append(record)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for records in by_student.values():
            newest_first = self._sort_by_timestamp(records)
            on_time = [r for r in newest_first if self.duedate is not None and r["timestamp"] <= self.duedate]
            self.src_records.append(on_time[0] if on_time and self.before_duedate else newest_first[0])
