"""Fuzzing: malformed model answers become parse-failed rows with a reason, never a crash.

1,000 hypothesis-generated answers (tool-call lists with wrong names, broken JSON, wrong types, NaN/inf, missing or
duplicate fields, several calls) go through an LLM surrogate's retry loop and the scoring runner's row builder; and
random Harmony completions go through the gpt-oss renderer path.
"""
import asyncio, json, math
from pathlib import Path
from hypothesis import event, given, settings, strategies as st, HealthCheck
from gpu_forecasters.forecast import TOOL_NAME, DEFER_TOOL_NAME, probability_fields, Forecast, Deferral
from gpu_forecasters.prompts import SurrogateQuery, PromptOptions
from gpu_forecasters.surrogates import LLMSurrogate, Attempt, RetryPolicy, HarmonyTokenizer, make_renderer, parse_completion
from gpu_forecasters.scoring import Comparison, Task, result_row

CODES = {'not_json', 'not_object', 'duplicate_key', 'missing_field', 'bad_type', 'out_of_range', 'not_finite',
         'empty_reasoning', 'zero_sum', 'truncated', 'no_tool_call', 'multiple_tool_calls', 'wrong_tool', 'bad_defer'}
FIELDS = ['predicted_bin', *probability_fields(), 'reasoning']
QUERY = SurrogateQuery('trimul/ca978112ca1b__3e23e8160039', 'trimul', 'a', 'b')
COMPARISON = Comparison(QUERY.comparison_id, 'trimul', 'a', 'b', 'NVIDIA A100-SXM4-80GB', 1.2, 4)

class Replay(LLMSurrogate):
    "An LLM surrogate whose model answers with the given tool calls (parsed by the real parser)."
    backend = 'fuzz'
    def __init__(self, answer, abstain):
        super().__init__('fuzz', options=PromptOptions(mode='abstain' if abstain else 'forecast'), retry=RetryPolicy(parse_retries=0))
        self.answer = answer
    async def _call(self, query, seed):
        calls, finish = self.answer
        answer, error = self._parse(calls, finish)
        return Attempt(answer, error, 10, 5, None, 'fuzz-model', finish)

junk = st.one_of(st.none(), st.booleans(), st.integers(-10, 20), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=8), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
probability = st.one_of(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.just(0.0), junk)

@st.composite
def arguments(draw):
    "Tool arguments: a forecast-shaped object with random damage, or arbitrary text."
    kind = draw(st.sampled_from(['object', 'object', 'object', 'text', 'json_value', 'duplicate']))
    if kind == 'text': return draw(st.text(max_size=40))
    if kind == 'json_value': return json.dumps(draw(st.one_of(st.lists(st.integers(), max_size=3), st.integers(), st.text(max_size=5))))
    obj = {'predicted_bin': draw(st.one_of(st.integers(1, 8), st.integers(1, 8), st.integers(1, 8), junk))}
    damage = draw(st.integers(0, 3)) == 0  # a quarter of the objects get a broken probability
    for f in probability_fields(): obj[f] = draw(probability if damage else st.one_of(st.floats(0, 1), st.just(0.0)))
    obj['reasoning'] = draw(st.one_of(st.text(min_size=1, max_size=10), st.text(min_size=1, max_size=10), st.just('  '), junk))
    if draw(st.integers(0, 4)) == 0:
        for f in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2)): obj.pop(f, None)
    if draw(st.booleans()): obj[draw(st.text(max_size=5))] = draw(junk)
    text = json.dumps(obj, allow_nan=True)
    if kind == 'duplicate' and 'reasoning' in obj: text = text[:-1] + ', "reasoning": "again"}'
    if draw(st.integers(0, 9)) == 0: text = text[: draw(st.integers(0, len(text)))]  # cut short
    return text if draw(st.booleans()) else (json.loads(text) if _loads(text) else text)

def _loads(text):
    try: json.loads(text); return True
    except ValueError: return False

call = st.tuples(st.sampled_from([TOOL_NAME] * 6 + [DEFER_TOOL_NAME, 'get_weather', '']), arguments())
calls = st.one_of(st.lists(call, min_size=1, max_size=1), st.lists(call, min_size=1, max_size=1), st.lists(call, max_size=3))
finish = st.sampled_from(['stop', 'length', 'tool_calls', None])

@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=calls, finish=finish, abstain=st.booleans())
def test_malformed_answers_become_failed_rows_with_reasons(calls, finish, abstain):
    result = asyncio.run(Replay((calls, finish), abstain).forecast(QUERY))
    task = Task(Replay((calls, finish), abstain), 'h' * 16, 0, COMPARISON, QUERY, 'p' * 64, None, Path('unused'))
    row = result_row(task, result)
    json.dumps(row, allow_nan=False)  # every row is strict JSON (as the cache writes it)
    assert result.final and result.attempts == 1
    if result.error is not None:
        assert row['parse_failed'] and row['bin_probabilities'] == [] and row['predicted_bin'] is None
        code = row['parse_error'].split(':', 1)[0]
        assert code in CODES, row['parse_error']
        event(code)
    elif result.deferral is not None:
        assert abstain and row['deferred'] and not row['parse_failed']
        event('deferral')
    else:
        f = result.forecast
        assert not row['parse_failed'] and len(row['bin_probabilities']) == 8
        assert math.isclose(sum(f.probs), 1.0, abs_tol=1e-9) and 1 <= f.predicted_bin <= 8
        event('forecast')

TOKENIZER = HarmonyTokenizer()
RENDERER = make_renderer('gpt_oss_medium_reasoning', TOKENIZER)
pieces = st.sampled_from(['<|start|>', 'assistant', '<|channel|>', 'analysis', 'commentary', 'final', '<|message|>', '<|end|>',
                          '<|call|>', '<|return|>', '<|constrain|>', 'json', f' to=functions.{TOOL_NAME}', ' to=functions.x',
                          '{"predicted_bin": 4', '}', 'text ', json.dumps({'predicted_bin': 4, **{f: 0.125 for f in probability_fields()}, 'reasoning': 'r'})])

@settings(max_examples=300, deadline=None)
@given(parts=st.lists(pieces, max_size=12))
def test_random_harmony_completions_never_crash_the_renderer_path(parts):
    answer, error, finish = parse_completion(RENDERER, TOKENIZER.encode(''.join(parts)))
    assert (answer is None) != (error is None)
    if error is not None: assert error.code in CODES, str(error)
    else: assert isinstance(answer, (Forecast, Deferral))
