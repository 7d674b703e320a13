#!/usr/bin/env python3
# Where a Hopper backward grid's SM time goes, from the per-block timeline a diagnostic build writes
# (patches/timeline.patch, LCAB_BWD_TIMELINE_OUT; one line per block: block sm item start_ns kv_ns steps_ns end_ns).
#   python3 analyze.py TIMELINE.txt...   (analysis.txt is its output on this folder's files)
import sys, collections
def analyze(path):
    rows=[]
    for line in open(path):
        b,sm,item,t0,tk,ts,te=line.split(); rows.append((int(b),int(sm),int(item),int(t0),int(tk),int(ts),int(te)))
    rows=[r for r in rows if r[3]>0]
    T0=min(r[3] for r in rows); T1=max(r[6] for r in rows)
    span=T1-T0
    sms=collections.defaultdict(list)
    for r in rows: sms[r[1]].append(r)
    nsm=len(sms)
    tot=span*nsm
    acc=collections.Counter()
    for sm,rs in sms.items():
        rs.sort(key=lambda r:r[3])
        prev_end=T0
        for r in rs:
            b,_,item,t0,tk,ts,te=r
            acc['gap before start']+=t0-prev_end
            if item>=0:
                acc['dkdv: start to K/V ready']+=tk-t0 if tk else 0
                acc['dkdv: steps']+=(ts-tk) if tk else (ts-t0)
                acc['dkdv: end (dQ wait, counter, dK/dV stores)']+=te-ts
            else:
                acc['conversion: waiting for its head']+=tk-t0
                acc['conversion: converting']+=te-tk
            prev_end=te
        acc['idle after the SM\'s last block']+=T1-prev_end
    print(path.split('/')[-1], 'span %.3f ms, %d SMs, %d blocks (%d conversion)'%(span/1e6, nsm, len(rows), sum(1 for r in rows if r[2]<0)))
    for k,v in acc.items(): print('   %-48s %6.2f%%  (%.3f ms per SM)'%(k, 100*v/tot, v/nsm/1e6))
    # last wave: time from the moment the first SM goes idle for good
    first_idle=min(max(r[6] for r in rs) for rs in sms.values())
    print('   first SM idle for good at %.3f ms (%.1f%% of span)'%((first_idle-T0)/1e6, 100*(first_idle-T0)/span))
    dk=[r for r in rows if r[2]>=0]
    print('   dK/dV blocks: median start->K/V %.1f us, steps->end %.1f us; first-wave start->K/V %.1f us'%(
        sorted(r[4]-r[3] for r in dk)[len(dk)//2]/1e3, sorted(r[6]-r[5] for r in dk)[len(dk)//2]/1e3,
        sorted(r[4]-r[3] for r in dk if r[3]-T0<2000)[len([r for r in dk if r[3]-T0<2000])//2]/1e3))
for p in sys.argv[1:]: analyze(p)
