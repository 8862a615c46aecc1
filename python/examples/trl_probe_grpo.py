"""GRPO on the probing task with TRL: `GRPOTrainer(environment_factory=ProbeEnv)`.

Each rollout gets its own `pbebench.rl.ProbeEnv`: TRL calls `reset(**row)` on the dataset
row (an instance of `pbebench.rl.Curriculum`, with its gold cascade), which returns the
task; the model calls the tools `run_hidden`, `test_cascade` and `submit` (ProbeEnv's
public methods); `get_reward()` is the behavioural grade of the submitted, else the last
tested, cascade. The rows of a GRPO group are the same instance (the same index).

    pip install ./python trl datasets
    python python/examples/trl_probe_grpo.py --model Qwen/Qwen3-0.6B --steps 200

`--tiny` trains a two-layer Qwen3 initialised at random from a config, with a byte-level
tokenizer made here and TRL's Qwen3 chat template: nothing is downloaded, so it runs on a
CPU in a minute or two. It checks the plumbing (rollouts, tools, rewards, optimiser
steps), not learning: a random model calls no tool, and every reward is the identity's 0.0.
benches/python/train_check.sh runs it.
"""

import argparse
import json
import time

from pbebench import rl


def rows(seed, size, levels):
    """Dataset rows: an empty user message (reset() appends the task) and the instance's
    fields, the gold cascade included (TRL hands the row to reset, never to the model)."""
    curriculum = rl.Curriculum(seed=seed, levels=levels)
    for index in range(size):
        yield {"prompt": [{"role": "user", "content": ""}], **curriculum.instance(index)}


def tiny_model_and_tokenizer(texts):
    """A random two-layer Qwen3 and a byte-level BPE tokenizer trained on `texts`, with
    TRL's Qwen3 chat template (TRL knows how to parse its tool calls)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>",
                "<tool_response>", "</tool_response>", "<think>", "</think>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1024, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        padding_side="left")
    tokenizer.chat_template = qwen3_chat_template
    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=8192,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    return Qwen3ForCausalLM(config), tokenizer


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="Qwen/Qwen3-0.6B")
    ap.add_argument("--tiny", action="store_true", help="a random tiny model and a local tokenizer; no download")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=8, help="dataset rows (curriculum instances)")
    ap.add_argument("--levels", default="{}", help='curriculum levels as JSON, e.g. \'{"cascade_len": 1}\'')
    ap.add_argument("--output-dir", default="pbebench-probe-grpo")
    args = ap.parse_args(argv)

    from datasets import Dataset  # not a dependency of pbebench
    from trl import GRPOConfig, GRPOTrainer  # not a dependency of pbebench

    train = Dataset.from_list(list(rows(args.seed, args.size, json.loads(args.levels))))
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=32 if args.tiny else 1024,
        max_tool_calling_iterations=30,  # ProbeEnv's max_turns, which its first message states
        learning_rate=1e-4 if args.tiny else 1e-6,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=args.tiny,
        bf16=False,
        seed=args.seed,
    )
    if args.tiny:
        env = rl.ProbeEnv()
        texts = [env.reset(**row) for row in train]
        model, tokenizer = tiny_model_and_tokenizer(texts)
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=config, train_dataset=train,
                              environment_factory=rl.ProbeEnv)
    else:
        trainer = GRPOTrainer(model=args.model, args=config, train_dataset=train, environment_factory=rl.ProbeEnv)
    start = time.monotonic()
    result = trainer.train()
    rewards = [log["reward"] for log in trainer.state.log_history if "reward" in log]
    print(json.dumps({"steps": result.global_step, "rewards": rewards, "seconds": round(time.monotonic() - start, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
