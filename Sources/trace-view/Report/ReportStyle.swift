/// The report page's style sheet: the system's fonts (nothing fetched), the colours of a light or
/// a dark scheme as the reader's system prefers, and the Okabe–Ito palette for event labels (told
/// apart by people with any colour vision; every mark also has its text in a tooltip or a table).
/// A table is laid out only once it is on the screen (`content-visibility`): two tables of 10,000
/// rows laid out at once held a 1M-event page's first paint back by almost 4 s.
enum ReportStyle {
    static let css = """
        :root{color-scheme:light dark;--fg:#1F2328;--muted:#57606A;--bg:#FFFFFF;--panel:#F6F8FA;--line:#D0D7DE;
        --accent:#0072B2;--warn:#9A3412;--pick:#D55E00;--busy:#0072B2;
        --c0:#E69F00;--c1:#56B4E9;--c2:#009E73;--c3:#F0E442;--c4:#0072B2;--c5:#D55E00;--c6:#CC79A7;--c7:#999999}
        @media (prefers-color-scheme: dark){:root{--fg:#E6EDF3;--muted:#8B949E;--bg:#0D1117;--panel:#161B22;--line:#30363D;
        --accent:#56B4E9;--warn:#F08A4B;--pick:#F08A4B;--busy:#56B4E9}}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
        header{padding:16px 24px 8px;border-bottom:1px solid var(--line)}
        h1{font-size:20px;margin:0 0 4px} h2{font-size:17px;margin:24px 0 8px} h3{font-size:15px;margin:16px 0 6px}
        main{padding:0 24px 48px}
        nav{position:sticky;top:0;z-index:5;background:var(--bg);padding:6px 24px;border-bottom:1px solid var(--line)}
        nav a{margin-right:16px;color:var(--accent);text-decoration:none} nav a:hover{text-decoration:underline}
        .facts{color:var(--muted)} .facts b{color:var(--fg);font-weight:600}
        .notice{background:var(--panel);border-left:4px solid var(--warn);padding:6px 12px;margin:8px 0}
        .notice li{margin:2px 0}
        .answers{display:flex;gap:16px;flex-wrap:wrap;margin:12px 0}
        .answer{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 14px;min-width:280px;flex:1}
        .answer .what{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
        .answer .it{font-size:16px;font-weight:600}
        button.link{background:none;border:none;color:var(--accent);cursor:pointer;font:inherit;padding:0;text-decoration:underline}
        #timeline-box{position:relative;display:flex;max-height:75vh;overflow:auto;border:1px solid var(--line);border-radius:6px;overflow:hidden}
        #track-names{flex:0 0 180px;border-right:1px solid var(--line);background:var(--panel);font-size:12px}
        #track-names div{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;padding:0 6px;border-bottom:1px solid var(--line)}
        #timeline{flex:1;display:block;cursor:grab;outline:none} #timeline:focus{box-shadow:inset 0 0 0 2px var(--accent)}
        #timeline .axis text,.chart text{fill:var(--muted);font-size:11px}
        #timeline .axis line,.chart .grid{stroke:var(--line)}
        .span{fill:var(--accent);fill-opacity:.55;cursor:pointer} .span.waiting{fill:var(--warn)}
        .span.picked{fill:var(--pick);fill-opacity:1}
        .cyc{stroke:var(--fg);stroke-opacity:.25;stroke-width:.5} .cyc.async{stroke:var(--fg);stroke-opacity:1;stroke-width:1.5;stroke-dasharray:3 2}
        .cyc.thin{stroke:none}
        .inst{fill:var(--c2);fill-opacity:.7} .inst.cancelled{fill:var(--c7)} .inst.running{fill:var(--c5)}
        .dens{fill:var(--busy)}
        .path{stroke:var(--pick);stroke-width:2;fill:none} .pathdot{fill:var(--pick)}
        #tip{position:absolute;pointer-events:none;background:var(--panel);border:1px solid var(--line);padding:4px 8px;
        border-radius:4px;font-size:12px;white-space:pre;display:none;z-index:9;max-width:600px;overflow:hidden}
        .legend span{display:inline-block;margin-right:12px;font-size:12px}
        .legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px;border:1px solid var(--line)}
        .hint{color:var(--muted);font-size:12px}
        #detail{border:1px solid var(--line);border-radius:6px;padding:8px 14px;margin-top:12px;background:var(--panel)}
        #detail[hidden]{display:none}
        .diagram{overflow:auto;max-height:640px;background:var(--bg);border:1px solid var(--line);border-radius:4px}
        .bar{display:flex;height:18px;border-radius:3px;overflow:hidden;margin:6px 0}
        .bar div{height:100%}
        table{border-collapse:collapse;font-size:13px;margin:4px 0}
        th,td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
        td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        th{cursor:pointer;user-select:none;background:var(--panel);position:sticky;top:0}
        th[aria-sort=ascending]::after{content:" \\25B2"} th[aria-sort=descending]::after{content:" \\25BC"}
        tbody tr:hover{background:var(--panel)} tr.picked{outline:2px solid var(--pick)}
        .scroll{max-height:480px;overflow:auto;border:1px solid var(--line);border-radius:6px;
        content-visibility:auto;contain-intrinsic-size:auto 480px}
        input[type=search]{font:inherit;padding:3px 8px;margin:4px 0;width:320px;color:var(--fg);background:var(--bg);
        border:1px solid var(--line);border-radius:4px}
        .gates{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:16px}
        .gate{border:1px solid var(--line);border-radius:6px;padding:4px 14px 10px}
        .chart{display:block} .chart rect.b{fill:var(--accent)} .chart polyline{stroke:var(--accent);fill:none;stroke-width:1.5}
        .chart rect.base{fill:none;stroke:var(--muted);stroke-width:1} .verdict.slower{color:var(--warn);font-weight:600}
        .verdict.faster{color:var(--accent);font-weight:600}
        .warnlist li{margin:4px 0} .check{font-weight:600;color:var(--warn)}
        """
}
