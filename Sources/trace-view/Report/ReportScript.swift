/// The report page's script: draws the page from the embedded model (``ReportModel``) with DOM
/// calls only (text nodes and attributes: a label never becomes markup), and runs its timeline
/// (zoom, pan, hover, pick), its sortable and filterable tables and the request detail a click or
/// the URL's `#request=` fragment opens. When done it sets `data-ready` on the body.
///
/// Its text is `report.js` beside this file, embedded at build time by the EmbedText plugin
/// (``js``) and linted by `scripts/lint.sh` (ESLint).
enum ReportScript {}
