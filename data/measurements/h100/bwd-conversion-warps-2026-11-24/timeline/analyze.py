#!/usr/bin/env python3
# Where the backward grid's SM time goes with the spare-warp conversion build's timeline (../patches/timeline-on-warps.patch;
# one line per block: block sm has_unit item start kv steps end warps_head_done warps_end, ns).
#   python3 analyze.py TIMELINE.txt...   (analysis.txt: its output on this folder's files)
import sys, collections, statistics
def analyze(path):
    rows=[]
    for line in open(path):
        f=line.split()
        b,sm,wc,item=int(f[0]),int(f[1]),int(f[2]),int(f[3]); t=list(map(int,f[4:10]))
        if t[0]>0: rows.append((b,sm,wc,item,t))
    T0=min(r[4][0] for r in rows); T1=max(max(r[4][3], r[4][5]) for r in rows)
    span=T1-T0
    sms=collections.defaultdict(list)
    for r in rows: sms[r[1]].append(r)
    nsm=len(sms); tot=span*nsm
    acc=collections.Counter()
    ext=[]; conv_dur=[]; waits=[]
    for sm,rs in sms.items():
        rs.sort(key=lambda r:r[4][0]); prev=T0
        for b,_,wc,item,t in rs:
            start,kv,steps,end,whd,wend=t
            block_end=max(end, wend) if wc else end
            acc['gap before start']+=start-prev
            if item>=0:
                acc['dkdv: start to K/V']+=kv-start
                acc['dkdv: steps']+=steps-kv
                acc['dkdv: end']+=end-steps
                if wc:
                    acc['dkdv: extended by its spare warps']+=max(0,wend-end)
                    ext.append(max(0,wend-end)/1e3); conv_dur.append((wend-whd)/1e3); waits.append((whd-start)/1e3)
            else:
                acc['conversion CTA: waiting']+=kv-start
                acc['conversion CTA: converting']+=end-kv
            prev=block_end
        acc['idle after last block']+=T1-prev
    print(path.split('/')[-1], 'span %.3f ms, %d blocks, %d with spare-warp units'%(span/1e6,len(rows),len(ext)))
    for k,v in acc.items(): print('   %-40s %6.2f%%'%(k,100*v/tot))
    if ext:
        print('   spare warps: unit conversion median %.0f us (p90 %.0f), wait from CTA start median %.0f us; CTA extended in %d of %d, median extension %.0f us'%(
            statistics.median(conv_dur), sorted(conv_dur)[int(.9*len(conv_dur))], statistics.median(waits), sum(1 for e in ext if e>0), len(ext), statistics.median([e for e in ext if e>0] or [0])))
        dk=[r for r in rows if r[3]>=0]
        print('   dK/dV steps median %.0f us with a unit, %.0f us without'%(statistics.median([(r[4][2]-r[4][1])/1e3 for r in dk if r[2]]), statistics.median([(r[4][2]-r[4][1])/1e3 for r in dk if not r[2]])))
for p in sys.argv[1:]: analyze(p)
