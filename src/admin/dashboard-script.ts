// The dashboard's one script of ours, served from our origin (/admin/assets/dashboard.js) after
// chart.js's own file: it draws each <canvas data-chart> from the description the server put in the
// attribute (escaped like every value). The numbers are also in the table beside each chart, so the
// page reads without scripts and to a screen reader; hovering a chart shows them too (the tooltip).
export const DASHBOARD_SCRIPT = `(function(){
var C=window.Chart;if(!C)return;
C.defaults.font.family='system-ui, sans-serif';C.defaults.color='#1d2433';
document.querySelectorAll('canvas[data-chart]').forEach(function(el){
  var s=JSON.parse(el.getAttribute('data-chart'));
  var round=s.type==='doughnut';
  new C(el,{type:s.type,data:{labels:s.labels,datasets:s.datasets.map(function(d){
    return {label:d.label,data:d.data,backgroundColor:d.color,borderColor:round?'#fff':d.color,borderWidth:s.type==='line'?2:(round?2:0),pointRadius:s.type==='line'?2:0,tension:0.2,maxBarThickness:80}})},
    options:{animation:false,responsive:true,maintainAspectRatio:false,
      interaction:round?{mode:'nearest',intersect:true}:{mode:'index',intersect:false},
      plugins:{legend:{display:round||s.datasets.length>1,position:'bottom'},tooltip:{enabled:true}},
      scales:round?{}:{x:{stacked:!!s.stacked,ticks:{autoSkip:true,maxRotation:0}},y:{stacked:!!s.stacked,beginAtZero:true,ticks:{precision:0},title:{display:!!s.yTitle,text:s.yTitle||''}}}}});
});
})();`;
