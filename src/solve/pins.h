/* pins.h - strategy injection (after ManuMatic, DESIGN.md section 6): a pin fixes one
 * choice and the search and the ILP derive everything else around it. Three families:
 *   macro degrees and settings   tp=8, dp=, pp=, vpp=, cp=, cp_kind=, ep=, etp=, zero=,
 *                                mbs= (micro_batch=), sp=, recompute=, schedule=, precision=
 *   operator groups              experts.ep=8, experts.etp=1, attention.tp=8, attention.cp=2,
 *                                attention.cp_kind=ulysses, embedding.vocab_parallel=true
 *   layer ranges and stages      layers[0:3].recompute=full, layers[60:61].stage=15,
 *                                stages[3].layers=5 (parsed by ilp_pin_parse, solved by the ILP)
 * The core prices one TP degree for attention and dense MLPs and one CP degree, so an
 * operator-group pin fixes the same strategy field as its macro twin; pinning both with
 * different values is a conflict the search reports. The job pins global_batch=,
 * seq_length= and budget_gib= (written by the explorer's `p` on those knobs) set the job;
 * devices= names the job's device count, which the search never changes: it is honoured
 * when the job has that many devices, and a search whose job has another count reports
 * the conflict (the pin keeps a plan's device count fixed in the explorer and in sweeps). */
#ifndef STRATA_SOLVE_PINS_H
#define STRATA_SOLVE_PINS_H

#include <stddef.h>

#include "core/model.h"
#include "core/strategy.h"
#include "solve/ilp.h"

#define PIN_MAX 48 /* a plan holds 32; leaves the ILP room for the pinned recompute mode */
#define PIN_TEXT 128

/* The strategy field a macro or operator-group pin fixes. */
typedef enum {
	PIN_DP = 0, PIN_TP, PIN_PP, PIN_VPP, PIN_CP, PIN_CP_KIND, PIN_EP, PIN_ETP, PIN_ZERO, PIN_MBS,
	PIN_SP, PIN_RECOMPUTE, PIN_SCHEDULE, PIN_PRECISION, PIN_VOCAB_PARALLEL,
	PIN_GBS, PIN_SEQ, PIN_BUDGET,
	PIN_DEVICES, /* the job's device count: honoured when the job has that many */
	PIN_LAYER, /* a layer-range or stage pin: see .layer */
	PIN_NKEYS
} pin_key;

typedef struct {
	char text[PIN_TEXT]; /* as written, trimmed: used in every message */
	int key;             /* pin_key */
	int value;           /* integer, bool (0/1) or enum value; budget in MiB */
	ilp_pin layer;       /* PIN_LAYER only */
} pin_t;

typedef struct {
	int n;
	pin_t pin[PIN_MAX];
} pin_set;

/* Parse one pin expression; 0, or -1 with a sentence in why (malformed, unknown key,
 * value out of range). */
int pin_parse(const char *expr, pin_t *p, char *why, size_t whylen);
/* Append a parsed pin to a set; 0, or -1 with why (malformed, or more than PIN_MAX). */
int pin_add(pin_set *set, const char *expr, char *why, size_t whylen);
/* Parse a plan's pin list (plan_t.pins) into an empty set; 0 or -1 with why. */
int pin_set_from_strings(pin_set *set, char (*pins)[128], int n, char *why, size_t whylen);
/* The value a set fixes for a key: 1 and *value when fixed, 0 when free, -1 when two pins
 * disagree (why names both). */
int pin_fixed(const pin_set *set, int key, int *value, char *why, size_t whylen);
/* Does a strategy honour every pin (macro, operator group, and the layer pins through its
 * stage split and recompute ranges)? 1, or 0 with the first pin it breaks in why. */
int pin_honoured(const pin_set *set, const model_t *m, const strategy_t *s, char *why, size_t whylen);
/* Check layer/stage pins against a model and a pipeline depth (ranges inside the layers,
 * stages below pp); 1, or 0 with why. pp <= 0 skips the stage check. */
int pin_layers_valid(const pin_set *set, const model_t *m, int pp, char *why, size_t whylen);
/* Smallest pipeline depth the stage pins allow (1 when there are none). */
int pin_min_pp(const pin_set *set);
/* 1 when the set has a pin only the ILP can satisfy (a stage or a stage's layer count). */
int pin_needs_ilp(const pin_set *set);
/* Write the recompute range pins into s->range (later pins win, as in the ILP); 0, or -1
 * with why when there are more than STRAT_MAX_RANGES. */
int pin_apply_ranges(const pin_set *set, strategy_t *s, char *why, size_t whylen);
/* The layer and stage pins in the ILP's form. */
void pin_ilp_pins(const pin_set *set, ilp_pins *out);
/* Copy the first n pins of a set into out (a prefix, for finding the pin that breaks). */
void pin_prefix(const pin_set *set, int n, pin_set *out);
/* The pinnable keys as written ("tp", "experts.ep", "layers[a:b].recompute") into out (at
 * most max); returns how many. */
size_t pin_names(const char **out, size_t max);
/* Plan-file name of the field a key fixes ("tp", "micro_batch"). */
const char *pin_key_name(int key);

#endif
