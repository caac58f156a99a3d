/**
 * The request table's script (inline, no dependency): every 5 s while the page is visible, and
 * at once when the filter form changes, it reads `/v1/requests` with the form's filters (the
 * page's session cookie is the key) and rebuilds the rows with the cells `requestCells` renders
 * on the server, as text, never as HTML. Without JavaScript the form is a plain GET of `/`.
 * It polls rather than listens, since the log is written by every replica and read from the
 * shared store, which has no feed of its own.
 */
export const REQUESTS_SCRIPT = `(function(){
var table=document.getElementById("requests-table"),form=document.getElementById("requests-filter");
if(!table||!form||!window.fetch||!window.URLSearchParams)return;
var body=table.tBodies[0],limit=table.getAttribute("data-limit")||"50",busy=false;
function params(){var p=new URLSearchParams(),els=form.elements;for(var i=0;i<els.length;i++){var el=els[i];if(el.name&&el.value)p.set(el.name,el.value);}return p;}
function cell(text){var td=document.createElement("td");td.textContent=text;return td;}
function cells(r){return [r.at.slice(0,19).replace("T"," "),r.keyId,r.modelAsked||"\\u2013",r.rung||"\\u2013",r.connection||"\\u2013",r.modelServed||"\\u2013",String(r.status),r.outcome,r.inputTokens===null?"\\u2013":r.inputTokens+" / "+(r.outputTokens||0),r.costUsd>0?"$"+r.costUsd.toFixed(6):"$0",Math.round(r.latencyMs)+" ms"];}
function attempts(r){return r.attempts.map(function(a){return a.connection+" "+a.outcome+(a.status===null?"":" "+a.status);}).join(" \\u2192 ");}
function render(rows){var frag=document.createDocumentFragment();
rows.forEach(function(r){var tr=document.createElement("tr");tr.setAttribute("data-request-id",r.requestId);tr.title=attempts(r);cells(r).forEach(function(t){tr.appendChild(cell(t));});frag.appendChild(tr);});
if(rows.length===0){var tr=document.createElement("tr"),td=cell("No request matches.");td.colSpan=11;td.className="muted";tr.appendChild(td);frag.appendChild(tr);}
while(body.firstChild)body.removeChild(body.firstChild);body.appendChild(frag);}
function refresh(){if(busy||document.visibilityState==="hidden")return;busy=true;var p=params();p.set("limit",limit);
fetch("/v1/requests?"+p.toString(),{credentials:"same-origin",headers:{accept:"application/json"}})
.then(function(res){return res.ok?res.json():null;}).then(function(doc){if(doc&&doc.data)render(doc.data);})
.catch(function(){}).then(function(){busy=false;});}
form.addEventListener("submit",function(e){e.preventDefault();var q=params().toString();history.replaceState(null,"",q?"?"+q:location.pathname);refresh();});
form.addEventListener("change",function(){var q=params().toString();history.replaceState(null,"",q?"?"+q:location.pathname);refresh();});
setInterval(refresh,5000);})();`;
