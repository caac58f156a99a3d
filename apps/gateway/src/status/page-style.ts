/**
 * The status page's stylesheet: system fonts, light and dark from `prefers-color-scheme`, one
 * column at 375 px and a grid of cards from 720 px. Text colours keep a contrast of at least
 * 4.5:1 on their background in both schemes.
 */
export const PAGE_STYLE = `
:root{--bg:#fafafa;--fg:#1b1b1f;--muted:#555a63;--card:#fff;--line:#d6d8dd;--track:#e3e5ea;
--ok:#1d6b35;--warn:#8a5300;--bad:#b3261e;--focus:#0b57d0;
--rung-subscription:#2e7d32;--rung-keyless:#00796b;--rung-free:#1565c0;--rung-cheap:#b26a00;--rung-premium:#6a1b9a;--rung-none:#757575;
--s0:#1565c0;--s1:#2e7d32;--s2:#c62828;--s3:#6a1b9a;--s4:#00838f;--s5:#ef6c00}
@media (prefers-color-scheme:dark){:root{--bg:#121316;--fg:#e6e7ea;--muted:#a9adb6;--card:#1d1f24;--line:#353941;--track:#2c2f36;
--ok:#7dd391;--warn:#f3b65b;--bad:#ff8a80;--focus:#8ab4f8;
--rung-subscription:#66bb6a;--rung-keyless:#4db6ac;--rung-free:#64b5f6;--rung-cheap:#ffb74d;--rung-premium:#ce93d8;--rung-none:#9e9e9e;
--s0:#64b5f6;--s1:#81c784;--s2:#ef9a9a;--s3:#ce93d8;--s4:#4dd0e1;--s5:#ffb74d}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--focus)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:4px 8px}
.top{display:flex;align-items:baseline;gap:1rem;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
.top h1{font-size:1.25rem;margin:0}#live{margin:0;color:var(--muted);font-size:.85rem}
main{padding:0 1rem 2rem;max-width:1400px;margin:0 auto}
h2{font-size:1.1rem;margin:1.25rem 0 .5rem}
.meta,.muted{color:var(--muted)}.ok{color:var(--ok)}.warn{color:var(--warn)}.bad{color:var(--bad)}
.served-summary ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}
.ladder{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.75rem}
.rung{border:1px solid var(--line);border-left:6px solid var(--rc,var(--line));border-radius:6px;padding:.5rem .75rem;background:var(--bg)}
.rung.served{box-shadow:0 0 0 2px var(--rc) inset}
.rung-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.rung-head h3{margin:0;font-size:1rem}.idx{display:inline-block;min-width:1.4em;text-align:center;border-radius:4px;background:var(--rc);color:var(--bg);font-weight:700}
.marker{font-size:.85rem;font-weight:600;padding:.1rem .5rem;border-radius:999px;border:2px solid var(--rc)}
.rung-subscription{--rc:var(--rung-subscription)}.rung-keyless{--rc:var(--rung-keyless)}.rung-free{--rc:var(--rung-free)}
.rung-cheap{--rc:var(--rung-cheap)}.rung-premium{--rc:var(--rung-premium)}.rung-none{--rc:var(--rung-none)}
.cards{display:grid;grid-template-columns:1fr;gap:.75rem;margin-top:.5rem}
@media (min-width:720px){.cards{grid-template-columns:repeat(auto-fill,minmax(320px,1fr))}}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.6rem .75rem;min-width:0;overflow-wrap:anywhere}
.card h4{margin:0 0 .25rem;font-size:.95rem}.card p{margin:.2rem 0}.billing{font-size:.85rem;color:var(--muted)}
.window{margin:.5rem 0}.wlabel{font-size:.9rem}.wmeta,.pace{font-size:.8rem;color:var(--muted);margin:.1rem 0}
.bar{position:relative;display:flex;height:12px;border-radius:6px;background:var(--track);overflow:hidden;margin:.2rem 0}
.bar span{display:block;height:100%;background:var(--ok)}.bar.mid span{background:var(--warn)}.bar.low span{background:var(--bad)}
.bar.spend span{background:var(--rc)}.bar.spend i{display:block;height:100%;background:repeating-linear-gradient(45deg,var(--rc) 0 3px,transparent 3px 6px);opacity:.6}
.budget{font-size:.85rem;margin:.3rem 0}.budget p{margin:0}
.out{margin:.3rem 0 0;padding-left:1.1rem;font-size:.82rem}
.history{display:grid;grid-template-columns:1fr;gap:1rem}
@media (min-width:1100px){.history{grid-template-columns:1fr 1fr}.history h2{grid-column:1/-1}#chart-requests{grid-column:1/-1}}
.chart{margin:0;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.5rem}
.chart figcaption{font-weight:600;font-size:.9rem}.chart svg{width:100%;height:auto;display:block}
.chart .axis,.chart .grid{stroke:var(--line);stroke-width:1}.chart .tick{fill:var(--muted);font-size:11px}
.chart rect{fill:var(--rc)}.chart .line{fill:none;stroke:var(--lc,var(--rc));stroke-width:2;vector-effect:non-scaling-stroke}
.legend{list-style:none;padding:0;margin:.25rem 0 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.8rem}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.3em;background:var(--lc,var(--rc))}
.s0{--lc:var(--s0)}.s1{--lc:var(--s1)}.s2{--lc:var(--s2)}.s3{--lc:var(--s3)}.s4{--lc:var(--s4)}.s5{--lc:var(--s5)}
.below{padding:0 1rem 2rem;max-width:1400px;margin:0 auto}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:.25rem 0 .75rem;font-size:.85rem}
.filters input,.filters select,.filters button{font:inherit;padding:.25rem .4rem;border-radius:4px;border:1px solid var(--line);background:var(--card);color:var(--fg)}
.table-scroll{overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:var(--card)}
#requests-table{border-collapse:collapse;width:100%;font-size:.82rem;font-variant-numeric:tabular-nums}
#requests-table th,#requests-table td{padding:.3rem .5rem;text-align:left;white-space:nowrap;border-bottom:1px solid var(--line)}
#requests-table th{font-weight:600;color:var(--muted)}
.login{max-width:24rem;margin:3rem auto;padding:1rem}.login form{display:flex;flex-direction:column;gap:.5rem}
.login input,.login button{font:inherit;padding:.5rem;border-radius:4px;border:1px solid var(--line);background:var(--card);color:var(--fg)}
.login button{background:var(--focus);color:var(--bg);border:0;font-weight:600}
`.replace(/\n/g, "");
