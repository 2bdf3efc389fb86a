#!/usr/bin/env python3
"""Per-workload ncu summary table from the raw CSVs of `device-run.sh ncu-rows`.

    python3 scripts/ncu_rows.py DIR   (DIR holds row_<workload>.csv)

Columns: kernel duration, grid, SM busy (sm__cycles_active / elapsed), tensor
pipe active, DRAM throughput, issue-active, cycles between a warp's
instructions, and that interval split by stall reason (warps per issue).
"""
import csv,glob,sys
d=sys.argv[1]
rows={}
for f in glob.glob(d+'/row_*.csv'):
    r=list(csv.reader(open(f)))
    dd=dict(zip(r[0],r[2]))
    if dict(zip(r[0],r[1])).get('gpu__time_duration.sum')=='ms': dd['gpu__time_duration.sum']=str(float(dd['gpu__time_duration.sum'])*1000)
    rows[f.split('/row_')[1][:-4]]=dd
order=['seed00','seed02','seed07','seed09','seed11','seed12','seed18','seed19','scale_single_1024','scale_single_8192','scale_single_32768','scale_batch16x2048','scale_batch64x512']
def g(r,k):
    v=r.get(k,'nan').replace(',','')
    try: return float(v)
    except: return float('nan')
cols=[('dur us','gpu__time_duration.sum'),('grid','launch__grid_size'),('SM act%','sm__cycles_active.avg'),('tensor%','sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed'),
('dram%','gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed'),('issue%','smsp__issue_active.avg.pct_of_peak_sustained_active'),('warps%','sm__warps_active.avg.pct_of_peak_sustained_active')]
st=['long_scoreboard','wait','barrier','dispatch_stall','no_instruction','imc_miss','not_selected','math_pipe_throttle','short_scoreboard','gmma','mio_throttle','branch_resolving']
print('| workload | ncu us | grid | SMs busy % | tensor pipe % | DRAM % | issue active % | cycles/issue | '+' | '.join(st)+' |')
print('|---'*(8+len(st))+'|')
for n in order:
    r=rows.get(n)
    if not r: continue
    dur=g(r,'gpu__time_duration.sum'); 
    if r.get('gpu__time_duration.sum') and 'ms' in str(r): pass
    busy=100*g(r,'sm__cycles_active.avg')/g(r,'gpc__cycles_elapsed.max')
    tot=g(r,'smsp__average_warp_latency_per_inst_issued.ratio')
    s=[g(r,'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio'%k) for k in st]
    print('| %s | %.1f | %d | %.0f | %.1f | %.1f | %.1f | %.1f | %s |'%(n,dur,g(r,'launch__grid_size'),busy,g(r,'sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed'),
      g(r,'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed'),g(r,'smsp__issue_active.avg.pct_of_peak_sustained_active'),tot,' | '.join('%.2f'%x for x in s)))
