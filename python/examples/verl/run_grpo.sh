#!/usr/bin/env bash
# GRPO on PBEBench with verl: needs GPUs (8 here), verl and vLLM; an example, not run in CI
# (CI tests the data layout and the reward function: python/tests/test_verl.py).
#
#   pip install "./python[verl]" verl vllm
#   bash python/examples/verl/run_grpo.sh [extra verl overrides…]
#
# The reward is pbebench.verl.compute_score (pbebench.reward: the Edit_Sim of the answer's
# cascade). Newer verl versions name the reward settings reward.custom_reward_function.*.
set -euo pipefail

DATA=${DATA:-data/pbebench}
MODEL=${MODEL:-Qwen/Qwen2.5-3B-Instruct}
python "$(dirname "$0")/prepare_data.py" --preset lite --train-size 1008 --test-size 160 --out-dir "$DATA"
REWARD=$(python -c 'import pbebench.verl as v; print(v.__file__)')

python -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$DATA/train.parquet" \
    data.val_files="$DATA/test.parquet" \
    data.prompt_key=prompt \
    data.train_batch_size=256 \
    data.max_prompt_length=1024 \
    data.max_response_length=2048 \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
    custom_reward_function.path="$REWARD" \
    custom_reward_function.name=compute_score \
    trainer.logger='[console]' \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=15 \
    trainer.project_name=pbebench \
    trainer.experiment_name=grpo-lite \
    "$@"
