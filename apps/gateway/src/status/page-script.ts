/**
 * The status page's script (inline, no dependency): listens to `/v1/status/events` and replaces
 * `<main>` with each pushed rendering, ticks the reset countdowns once a second against the
 * server's clock (the offset from the last snapshot's `data-now`), and shows whether the page is
 * live. EventSource reconnects by itself after a dropped stream; when it gives up (the gateway
 * answered an error while restarting) a new one is opened after a few seconds. No polling.
 */
export const PAGE_SCRIPT = `(function(){
var main=document.getElementById("status"),live=document.getElementById("live"),offset=0;
function sync(){var n=Date.parse(main.getAttribute("data-now"));offset=isNaN(n)?0:n-Date.now();}
function text(ms,prefix){if(!isFinite(ms))return "";if(ms<=0)return prefix==="resets in"?"reset passed":"ended";
var t=Math.ceil(ms/1000),h=Math.floor(t/3600),m=Math.floor(t%3600/60),s=t%60;
if(h>=48){var d=Math.floor(h/24);return prefix+" "+d+" d"+(h%24?" "+h%24+" h":"");}
return h>0?prefix+" "+h+" h "+m+" min":prefix+" "+m+" min "+s+" s";}
function tick(){var now=Date.now()+offset,els=main.querySelectorAll("[data-until]");
for(var i=0;i<els.length;i++){var el=els[i],v=text(Date.parse(el.getAttribute("data-until"))-now,el.getAttribute("data-prefix"));if(el.textContent!==v)el.textContent=v;}}
function connect(){if(!window.EventSource){live.textContent="snapshot (no live updates in this browser)";return;}
var es=new EventSource("/v1/status/events");
es.onopen=function(){live.textContent="live";};
es.addEventListener("status",function(e){var d;try{d=JSON.parse(e.data);}catch(_){return;}
main.setAttribute("data-now",d.now);main.innerHTML=d.html;sync();tick();live.textContent="live";});
es.onerror=function(){live.textContent="reconnecting…";if(es.readyState===2){es.close();setTimeout(connect,3000);}};}
sync();tick();setInterval(tick,1000);connect();})();`;
