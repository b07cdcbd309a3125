"""A smoke run of Debian's python3-gitlab against the forge simulator.

Usage: python3 python_gitlab_smoke.py <api origin> <token>. Prints one JSON object with what each
call returned; the test (forge-python-gitlab.e2e.test.ts) checks it. A call that raises stops the
run with the exception on stderr and a non-zero exit.
"""
import json
import sys

import gitlab

url, token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=token)
out = {}

gl.auth()
out["user"] = gl.user.username
out["version"] = gl.version()[0]
p = gl.projects.get("acme/widgets")
out["project"] = p.path_with_namespace
out["owned"] = sorted(x.path for x in gl.projects.list(owned=True, all=True))
out["tree"] = sorted(x["path"] for x in p.repository_tree(recursive=True, all=True))
out["readme"] = p.files.get("README.md", ref="main").decode().decode().splitlines()[0]
out["raw"] = p.files.raw("package.json", ref="main").decode()

labels = p.labels.list(all=True)
out["labels"] = sorted(x.name for x in labels)
bug = p.labels.get("bug")
bug.color = "#00ff00"
bug.save()
out["label_by_id"] = p.labels.get(bug.id).color
try:
    p.labels.create({"name": "bug", "color": "#ff0000"})
    out["duplicate_label"] = 201
except gitlab.exceptions.GitlabCreateError as e:
    out["duplicate_label"] = e.response_code

issue = p.issues.create({"title": "From python-gitlab", "labels": ["bug"]})
issue.notes.create({"body": "noted"})
issue.state_event = "close"
issue.save()
out["issue"] = [p.issues.get(issue.iid).state, [n.body for n in issue.notes.list(all=True)]]

mr = p.mergerequests.get(1)
out["mr"] = [mr.source_branch, len(mr.changes()["changes"]), [c.title for c in mr.commits()]]
mr.notes.create({"body": "LGTM"})
out["mr_approvals"] = p.mergerequests.get(2).approvals.get().approvals_required

pipeline = p.pipelines.get(1)
jobs = pipeline.jobs.list(all=True)
out["jobs"] = sorted(j.name for j in jobs)
out["trace"] = p.jobs.get(jobs[0].id).trace().decode().splitlines()[0]

p.branches.create({"branch": "py/branch", "ref": "main"})
p.commits.create(
    {
        "branch": "py/branch",
        "commit_message": "From python-gitlab",
        "actions": [{"action": "create", "file_path": "py.txt", "content": "hi\n"}],
    }
)
out["commits"] = [c.title for c in p.commits.list(ref_name="py/branch", per_page=1, get_all=False)]
out["compare"] = len(p.repository_compare("main", "py/branch")["diffs"])

p.releases.create({"tag_name": "v1.4.0", "name": "1.4", "description": "notes"})
out["release_commit"] = sorted(p.releases.get("v1.4.0").commit.keys())
out["tags"] = [t.name for t in p.tags.list(all=True)]
out["group_projects"] = sorted(x.path for x in gl.groups.get("acme").projects.list(include_subgroups=True, all=True))
out["milestone"] = p.milestones.create({"title": "py-1"}).state
out["wiki"] = p.wikis.create({"title": "Py page", "content": "hi"}).slug

print(json.dumps(out))
