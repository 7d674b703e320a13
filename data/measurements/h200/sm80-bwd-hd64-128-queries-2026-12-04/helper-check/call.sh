# The device tool's command of this call, as it ran (build-carry/final: main 7a83a8c's binaries, ../final/'s): the
# first run of scripts/device_call_env.sh's sm80_vs_fa2, at hd 64.
source scripts/device_call_env.sh && bash scripts/carry.sh unpack build-carry/final > /dev/null && device_info && sm80_vs_fa2 build-carry/final 64
