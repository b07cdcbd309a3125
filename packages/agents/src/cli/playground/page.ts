// The playground's page and stylesheet (its script is web/playground.js, bundled at build time).
// A workbench: the graph and an inspector side by side; plan, chat and findings as tabs below the
// inspector, so none pushes another off screen; both splits resizable by pointer and keyboard; a
// dark theme that follows the system. No inline script or style: the CSP allows neither.

export const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>agents playground</title>
<link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>
<body><header><h1>agents playground</h1><span id="file"></span>
<input id="search" type="search" placeholder="Find a resource" aria-label="find a resource by name" list="names" autocomplete="off"><datalist id="names"></datalist>
<button id="plan" type="button">Plan</button><button id="apply-run" type="button" hidden>Apply this plan</button>
<span id="status" role="status"></span></header>
<main id="workbench">
<section id="graph-pane" aria-label="graph">
<div id="graph-bar"><span id="graph-note" role="status"></span>
<button id="fit" type="button">Fit to width</button><button id="expand-all" type="button">Expand all</button><button id="collapse-all" type="button">Collapse groups</button></div>
<div id="graph"></div></section>
<div id="split-v" class="splitter" role="separator" tabindex="0" aria-orientation="vertical" aria-label="width of the side panels" aria-valuemin="20" aria-valuemax="80" aria-valuenow="40"></div>
<div id="side">
<section id="inspector" aria-labelledby="inspector-title" tabindex="0"><h2 id="inspector-title">Resource</h2><div id="details">Click a resource.</div></section>
<div id="split-h" class="splitter" role="separator" tabindex="0" aria-orientation="horizontal" aria-label="height of the resource panel" aria-valuemin="10" aria-valuemax="80" aria-valuenow="35"></div>
<section id="panels" aria-label="plan, chat and findings">
<div role="tablist" aria-label="panels" id="tabs">
<button role="tab" type="button" id="tab-plan" aria-controls="panel-plan" aria-selected="true">Plan</button>
<button role="tab" type="button" id="tab-chat" aria-controls="panel-chat" aria-selected="false" tabindex="-1">Chat</button>
<button role="tab" type="button" id="tab-findings" aria-controls="panel-findings" aria-selected="false" tabindex="-1">Findings <span id="finding-count"></span></button>
</div>
<div role="tabpanel" id="panel-plan" aria-labelledby="tab-plan" tabindex="0">
<p id="plan-stale" class="stale-note" hidden>agents.yaml changed after this plan: plan again to see what applies now.</p>
<p id="plan-summary">No plan yet: press Plan.</p>
<ul id="legend" aria-label="legend"><li class="act-create">+ create</li><li class="act-update">~ update</li><li class="act-replace">± replace</li><li class="act-delete">− delete</li><li class="act-adopt">⇐ adopt</li><li class="act-noop">no change</li></ul>
<div id="plan-list"></div><p id="apply"></p><pre id="apply-log" hidden></pre>
<details id="plan-raw"><summary>The plan as agents plan prints it</summary><pre id="plan-text"></pre></details>
</div>
<div role="tabpanel" id="panel-chat" aria-labelledby="tab-chat" tabindex="0" hidden><section id="chat" aria-label="chat">
<p class="chat-bar"><select id="agent" aria-label="agent"></select> <button id="start" type="button">Start a session</button>
<select id="session" aria-label="session of this agent" hidden></select>
<span id="chat-status" role="status"></span> <a id="download" hidden>Download events (JSONL)</a></p>
<div id="transcript" aria-live="polite"></div>
<p class="chat-input"><textarea id="message" rows="2" aria-label="message" disabled></textarea>
<button id="send" type="button" disabled>Send</button> <button id="stop" type="button" disabled>Stop</button></p>
</section></div>
<div role="tabpanel" id="panel-findings" aria-labelledby="tab-findings" tabindex="0" hidden><ul id="findings"></ul></div>
</section></div></main></body></html>
`;

export const CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#141414;--muted:#555;--line:#c9ced6;--panel:#f5f6f8;--lane:#eef2f8;--lane-line:#9aa5b8;
--node:#fff;--edge:#4a4f57;--focus:#1a56db;
--create:#116b1c;--create-bg:#dcf3dc;--update:#7a5200;--update-bg:#fff0bf;--replace:#a0400a;--replace-bg:#ffe0c2;--delete:#b3141b;--delete-bg:#fbd5d5;
--adopt:#1d4fa8;--adopt-bg:#d8e6ff;--read:#444;--read-bg:#ececec;--error:#b3141b;--warning:#7a5200}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e8e8e8;--muted:#b0b4ba;--line:#3d434c;--panel:#1f2328;--lane:#1c222b;--lane-line:#4d5868;
--node:#22272e;--edge:#a9b1bc;--focus:#7aa7ff;
--create:#7ddc85;--create-bg:#173b1c;--update:#f0c75e;--update-bg:#3d3210;--replace:#ffae6b;--replace-bg:#46290f;--delete:#ff8a8f;--delete-bg:#4a1b1e;
--adopt:#95b8ff;--adopt-bg:#1b2d4d;--read:#c8c8c8;--read-bg:#2b2b2b;--error:#ff8a8f;--warning:#f0c75e}}
*{box-sizing:border-box}html,body{height:100%}
body{font:14px system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg);display:flex;flex-direction:column;overflow:hidden}
header{display:flex;gap:.6em;align-items:center;padding:.4em .8em;border-bottom:1px solid var(--line);flex:none;flex-wrap:wrap}
h1{font-size:1.05em;margin:0}h2{font-size:1em;margin:0 0 .4em}#file{color:var(--muted);font-size:12px;overflow:hidden;text-overflow:ellipsis;max-width:30em;white-space:nowrap}
#search{width:14em}
button,select,input,textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.2em .6em}
button{cursor:pointer;background:var(--panel)}button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:2px solid var(--focus);outline-offset:1px}
#workbench{flex:1;min-height:0;display:grid;grid-template-columns:minmax(0,var(--graph-share,60fr)) 6px minmax(0,var(--side-share,40fr))}
#graph-pane{display:flex;flex-direction:column;min-width:0;min-height:0}
#graph-bar{display:flex;gap:.5em;align-items:center;padding:.3em .6em;border-bottom:1px solid var(--line);font-size:12px}#graph-note{flex:1;color:var(--muted)}
#graph{flex:1;overflow:auto;min-height:0}#graph.dimmed svg{opacity:.35;filter:grayscale(.8)}
.banner{margin:.4em .6em;padding:.4em .6em;border:1px solid var(--error);border-radius:4px;color:var(--error);background:var(--delete-bg)}
.splitter{background:var(--line);touch-action:none}.splitter:hover,.splitter:focus-visible{background:var(--focus)}
#split-v{cursor:col-resize}#split-h{cursor:row-resize;height:6px}
#side{display:grid;grid-template-rows:minmax(0,var(--inspector-share,35fr)) 6px minmax(0,var(--panels-share,65fr));min-width:0;min-height:0}
#inspector{overflow:auto;padding:.5em .8em;min-height:0}#panels{display:flex;flex-direction:column;min-height:0}
[role=tablist]{display:flex;gap:2px;border-bottom:1px solid var(--line);padding:.3em .5em 0;flex:none}
[role=tab]{border-bottom:none;border-radius:4px 4px 0 0}[role=tab][aria-selected=true]{background:var(--bg);font-weight:bold;border-color:var(--focus)}
[role=tabpanel]{flex:1;overflow:auto;padding:.5em .8em;min-height:0}
#panel-chat:not([hidden]){display:flex;flex-direction:column}#chat{display:flex;flex-direction:column;flex:1;min-height:0}
.chat-bar,.chat-input{margin:.2em 0;display:flex;gap:.4em;align-items:center;flex-wrap:wrap;flex:none}.chat-input textarea{flex:1;min-width:10em}
#transcript{flex:1;min-height:6em;overflow:auto;border:1px solid var(--line);border-radius:4px;padding:.4em}
pre{white-space:pre-wrap;background:var(--panel);padding:.5em;font-size:12px;border-radius:4px;margin:.3em 0}
.msg{margin:.3em 0;white-space:pre-wrap}.msg.user{font-weight:bold}.msg.thinking{color:var(--muted);font-style:italic}
.msg.tool-call,.msg.tool-result{font-family:ui-monospace,monospace;font-size:12px;background:var(--panel);padding:.2em .4em;border-radius:4px}
.msg summary{cursor:pointer}.msg.tool-result.error,.msg.error,.refused{color:var(--error)}.msg.status,.msg.usage,.msg.notice{color:var(--muted);font-size:12px}
.confirm{border:1px solid var(--update);background:var(--update-bg);padding:.4em;border-radius:4px}
#legend{display:flex;flex-wrap:wrap;gap:.4em;list-style:none;padding:0;margin:.3em 0}#legend li{padding:0 .5em;border-radius:3px;font-size:12px;font-family:ui-monospace,monospace}
.act-create{color:var(--create);background:var(--create-bg)}.act-update{color:var(--update);background:var(--update-bg)}.act-replace{color:var(--replace);background:var(--replace-bg)}
.act-delete{color:var(--delete);background:var(--delete-bg)}.act-adopt{color:var(--adopt);background:var(--adopt-bg)}.act-read,.act-noop{color:var(--read);background:var(--read-bg)}
#plan-summary{font-weight:bold;margin:.2em 0}.stale-note{color:var(--warning);font-weight:bold;margin:.2em 0}#panel-plan[data-stale] #plan-list{opacity:.55}
#plan-list details{margin:.2em 0;border-radius:4px}#plan-list summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:12px;padding:.15em .4em}
.plan-line{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;margin:0;padding:.05em .4em .05em 1.6em}
#findings{list-style:none;padding:0;margin:0}#findings li{margin:0 0 .8em}.finding-head{display:block;width:100%;text-align:left;border:none;background:none;padding:0;font-weight:bold}
#findings li.error .finding-head{color:var(--error)}#findings li.warning .finding-head{color:var(--warning)}
.frame{white-space:pre;overflow-x:auto;font-family:ui-monospace,monospace}.frame .caret{color:var(--error);font-weight:bold}.hint{margin:.2em 0;color:var(--muted)}
#details h3{margin:.2em 0;font-size:1em;word-break:break-all}#details h4{margin:.6em 0 .2em;font-size:.9em}#details .source,#details .address{color:var(--muted);font-size:12px;margin:.1em 0;word-break:break-all}
#details ul{margin:.2em 0;padding-left:1.2em}
svg{display:block}#graph svg.fit{width:100%;height:auto}
g.group>rect{fill:var(--lane);stroke:var(--lane-line)}g.group>text{fill:var(--fg)}
g.edge>path{stroke:var(--edge)}path.arrow{fill:var(--edge)}g.edge>rect.label{fill:var(--bg);stroke:var(--line)}g.edge>text{fill:var(--fg)}
g.node{cursor:pointer}g.node .shape{fill:var(--node)}g.node text.name,g.deco text.mark{fill:var(--fg)}
g.node:focus{outline:none}g.node:focus-visible .shape,g.node.selected .shape{stroke:var(--focus);stroke-width:4}
g.node.match .shape{stroke:var(--focus);stroke-dasharray:2 2;stroke-width:3}
g.node[data-status=create] .shape{fill:var(--create-bg)}g.deco[data-status=create] text.mark{fill:var(--create)}
g.node[data-status=update] .shape{fill:var(--update-bg)}g.deco[data-status=update] text.mark{fill:var(--update)}
g.node[data-status=replace] .shape{fill:var(--replace-bg)}g.deco[data-status=replace] text.mark{fill:var(--replace)}
g.node[data-status=delete] .shape{fill:var(--delete-bg)}g.deco[data-status=delete] text.mark{fill:var(--delete)}
g.node[data-status=adopt] .shape{fill:var(--adopt-bg)}g.deco[data-status=adopt] text.mark{fill:var(--adopt)}
g.node[data-ghost],g.deco[data-ghost]{opacity:.6}g.node[data-ghost] .shape{fill:none}g.node[data-ghost] text.name{text-decoration:line-through}
g.node[data-count] .shape{stroke-width:3}
@media (max-width:900px){#workbench{grid-template-columns:1fr;grid-template-rows:minmax(0,1fr) 0 minmax(0,1fr)}#split-v{display:none}}
`;
