"""AlphaZero's learning step: the network fitted to the improved policies and the games' results."""

from __future__ import annotations

import functools

from crossenvs.support.extras import needs_extra

with needs_extra("train", "crossenvs train alphazero"):
    import torch

from crossenvs.az.network import AlphaZeroNet, autocast
from crossenvs.az.torch_threads import torch_thread_choice


def train_step(
    net: AlphaZeroNet, optimizer: torch.optim.Optimizer, batch, device: str, precision: str = "float32"
) -> dict[str, float]:
    """One gradient step on ``batch`` (observations, improved policies, results): cross-entropy to the policy
    plus squared error to the result, the forward pass in ``precision`` and the losses in float32."""
    observations, policies, results = (torch.as_tensor(array, device=device) for array in batch)
    net.train()
    with autocast(device, precision):
        logits, values = net(observations)
    logits, values = logits.float(), values.float()  # the losses in float32
    policy_loss = -(policies * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_loss = torch.mean((values - results) ** 2)
    optimizer.zero_grad()
    (policy_loss + value_loss).backward()
    optimizer.step()
    net.eval()
    return {"loss/policy": policy_loss.item(), "loss/value": value_loss.item()}


def learner(net: AlphaZeroNet, optimizer: torch.optim.Optimizer, device: str, precision: str = "float32"):
    """``learn(size, batch)``: one :func:`train_step`, on the CPU on torch's threads or one, whichever is faster now."""
    step = functools.partial(train_step, net, optimizer, device=device, precision=precision)
    return torch_thread_choice(step) if device == "cpu" else lambda size, batch: step(batch)
