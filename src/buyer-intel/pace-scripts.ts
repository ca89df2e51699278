// The Lua of the shared provider pace (shared-rate.ts), kept apart so the rules read in one place.
//
// Two keys in one hash slot: `at`, the GCRA's theoretical arrival time (ms, Redis's clock), and `state`,
// what the last 429s taught, as "cutAt wmax r0 cap capAt" (absent: nothing learned, the configured rate
// and burst). Redis's own clock, so processes on several machines agree.
//
// The design follows TCP CUBIC (RFC 9438) and the AWS SDKs' adaptive retry mode, which paces a client
// the same way from throttling answers: a multiplicative cut on a 429, then a cubic climb back that is
// quick while far below the rate that broke and flat near it, so the pace sits just under the
// provider's real limit instead of sawing across it. What we add, and why:
// - One cut per round trip: a 429 lowers the rate only if its request was paced after the last cut
//   (`reservedAt` > cutAt). Forty requests that left together and came back 429 together are one
//   overshoot, not forty (finding 1 of issue #42: 40 concurrent calls → 7 cuts → 1.34/s).
// - Burst 1 once anything was learned: a provider that refused a burst is paced evenly, and a
//   Retry-After moves `at` to its end, so every worker waits it out; nothing leaves early on a burst
//   allowance. A cut also voids the slots reserved ahead on the old pace (up to a burst and a second's
//   worth): kept, they would add their length to the pause.
// - A cap: a 429 at the plateau near the cap (≥ CAP_NEAR of it) means the provider's limit is about
//   there (on a loaded machine, where timers bunch requests, a little under it), so the cap drops to
//   MARGIN × that rate and regrows by CAP_GROWTH of the configured rate per second. A 429 on the climb
//   back or far below the cap (a storm of refusals whatever the pace) cuts the rate but keeps the cap,
//   so the pace is back at the cap within seconds of the storm's end.
// - A floor tied to the configured rate, never an absolute one.
// The state expires HOLD_MS after the last 429: then the configured rate and burst are tried again.

/**
 * The share of the rate a 429 keeps. CUBIC's β is 0.7, for a path whose capacity nobody knows; here the
 * cap below learns where the limit is, so the cut only has to clear the overshoot of one round trip.
 */
export const BETA = 0.85;
/** The cubic's scale, in configured rates per s³: ~15 s from the floor back to the cap. */
export const CUBIC_SCALE = 4e-4;
/** The rate never falls below this share of the configured rate. */
export const FLOOR_SHARE = 0.1;
/** A 429 at ≥ this share of the cap lowers the cap. */
export const CAP_NEAR = 0.9;
/**
 * The cap (and the cubic's plateau) sits this far under the rate that broke: room for the timing noise
 * of a busy machine against a provider with no burst, where each 429 pauses everyone a whole second.
 */
export const MARGIN = 0.95;
/** Share of the configured rate the cap regrows by per second: 1 % per 10 s (one probe a minute). */
export const CAP_GROWTH = 0.001;
/** How long what a 429 taught holds after the last one. */
export const HOLD_MS = 10 * 60_000;
/** While throttled, a process reserves slots this far ahead at most (a 429 cancels only its own). */
export const THROTTLED_HORIZON_MS = 300;

// The rate at time `at` (ms) from the state: the configured rate `C` when nothing is learned.
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local s = redis.call('MGET', KEYS[1], KEYS[2])
local C = tonumber(ARGV[1])
local tat = math.max(tonumber(s[1] or '0'), now)
local cutAt, wmax, r0, cap, capAt
if s[2] then
  local f = {}
  for v in string.gmatch(s[2], '%S+') do f[#f + 1] = tonumber(v) end
  cutAt, wmax, r0, cap, capAt = f[1], f[2], f[3], f[4], f[5]
end
local floor = C * ${FLOOR_SHARE}
local function capAtTime(at)
  if not cutAt then return C end
  return math.min(C, cap + C * ${CAP_GROWTH} * (at - capAt) / 1000)
end
local k = ${CUBIC_SCALE} * C
-- Seconds from the last cut to the cubic's plateau.
local function plateau()
  if wmax > r0 then return ((wmax - r0) / k) ^ (1 / 3) end
  return 0
end
local function rateAt(at)
  if not cutAt then return C end
  local w = wmax + k * ((at - cutAt) / 1000 - plateau()) ^ 3
  return math.max(floor, math.min(capAtTime(at), w))
end`;

/**
 * ARGV: configured rate (per s), configured burst, slots wanted (n), horizon (ms). Reserves the next
 * slots, as many as are wanted and start within the horizon. Answers { slots reserved (0..n), ms until
 * the first (≤ 0: now), the interval in µs, Redis's now (ms), the rate in use (×1000), the horizon used
 * (ms) }: the k-th slot (from 0) may go k intervals after the first.
 */
export const TAKE = `${PRELUDE}
local rate = rateAt(now)
local burst = tonumber(ARGV[2])
local horizon = tonumber(ARGV[4])
if cutAt then
  burst = 1
  horizon = math.min(horizon, ${THROTTLED_HORIZON_MS})
end
local interval = 1000 / rate
local first = tat - now - interval * (burst - 1)
local taken = math.floor((horizon - first) / interval) + 1
taken = math.max(0, math.min(tonumber(ARGV[3]), taken))
if taken > 0 then
  tat = tat + taken * interval
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
end
return { taken, math.ceil(first), math.ceil(interval * 1000), math.floor(now), math.floor(rate * 1000), horizon }`;

/**
 * ARGV: configured rate, Retry-After (ms, 0: none), when the refused request was paced (Redis ms, 0:
 * unknown, which counts as after any cut). Answers { 1 if the rate was cut, the rate now (×1000), the
 * rate before (×1000), ms until the next slot }.
 */
export const THROTTLED = `${PRELUDE}
local before = rateAt(now)
local cut = 0
local reservedAt = tonumber(ARGV[3])
if (not cutAt) or reservedAt == 0 or reservedAt > cutAt then
  local c = capAtTime(now)
  -- Only a 429 at the plateau says the cap is too high; one on the climb back is a storm's.
  local climbing = cutAt and (now - cutAt) / 1000 < plateau()
  if before >= ${CAP_NEAR} * c and not climbing then c = ${MARGIN} * before end
  cap = math.max(floor, c)
  capAt = now
  wmax = math.max(floor, ${MARGIN} * before)
  r0 = math.max(floor, ${BETA} * before)
  cutAt = now
  cut = 1
end
redis.call('SET', KEYS[2], string.format('%.3f %.4f %.4f %.4f %.3f', cutAt, wmax, r0, cap, capAt), 'PX', ${HOLD_MS})
-- A cut voids the slots reserved on the old pace (each process takes back its own on its next 429):
-- the next slot is after the Retry-After, not after every slot the burst had let be reserved.
local pause = now + tonumber(ARGV[2])
if cut == 0 then pause = math.max(tat, pause) end
redis.call('SET', KEYS[1], string.format('%.3f', pause), 'PX', math.ceil(pause - now) + 1000)
return { cut, math.floor(rateAt(now) * 1000), math.floor(before * 1000), math.ceil(pause - now) }`;

/** ARGV: configured rate. Answers { the rate in use (×1000), ms the state still holds (-2: none) }. */
export const READ = `${PRELUDE}
return { math.floor(rateAt(now) * 1000), redis.call('PTTL', KEYS[2]) }`;
