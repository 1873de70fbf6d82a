//! One optimisation step over every trainable tensor: gradient clipping by the global norm,
//! then burn's AdamW per tensor (weight decay on matrices only), and the learning-rate
//! schedule (linear warm-up, then linear decay to zero).

use burn::optim::{AdamW, AdamWConfig, AdamWState, Optimizer};
use burn::prelude::*;
use burn::tensor::Gradients;

use crate::train::params::{decays, ParamMut, Params};

/// The learning rate for optimisation step `step` (0-based) of `total`: rises linearly over
/// the first `warmup` steps to `peak` (step 0 already uses `peak / warmup`, so no step is
/// wasted at rate 0), then falls linearly to 0 at step `total`, as `transformers`'
/// `get_linear_schedule_with_warmup`.
pub fn learning_rate(step: usize, total: usize, warmup: usize, peak: f64) -> f64 {
    if step < warmup {
        peak * (step + 1) as f64 / warmup as f64
    } else if total > warmup {
        peak * (total.saturating_sub(step)) as f64 / (total - warmup) as f64
    } else {
        peak
    }
}

/// Per-tensor AdamW state, in [`Params::for_each`]'s order.
enum State {
    Vector(Option<AdamWState<1>>),
    Matrix(Option<AdamWState<2>>),
}

/// A gradient read out of burn's [`Gradients`], in [`Params::for_each`]'s order.
enum Grad {
    Vector(Tensor<1>),
    Matrix(Tensor<2>),
    /// The tensor took no part in the loss (cannot happen for this model; kept safe).
    None,
}

/// AdamW over a [`RobertaForSequenceClassification`] held as plain tensors on an autodiff
/// device.
pub struct AdamWSteps {
    with_decay: AdamW,
    without_decay: AdamW,
    max_grad_norm: f32,
    states: Vec<State>,
}

impl AdamWSteps {
    /// `transformers`' defaults for β₁, β₂ and ε (0.9, 0.999, 1e-8); `weight_decay` applies to
    /// weight matrices and embeddings only; gradients are rescaled so that their global L2
    /// norm is at most `max_grad_norm` (what `torch.nn.utils.clip_grad_norm_` does; burn's own
    /// clipping works per tensor).
    pub fn new(weight_decay: f32, max_grad_norm: f32) -> Self {
        let config = |decay: f32| {
            AdamWConfig::new()
                .with_beta_1(0.9)
                .with_beta_2(0.999)
                .with_epsilon(1e-8)
                .with_weight_decay(decay)
                .build()
        };
        Self {
            with_decay: config(weight_decay),
            without_decay: config(0.0),
            max_grad_norm,
            states: Vec::new(),
        }
    }

    /// Applies one step with learning rate `lr` using the gradients of `grads`, replacing the
    /// model's tensors with the updated ones (still tracked for the next step). The global
    /// gradient norm and the clipping factor stay on the device (no read-back, so a step never
    /// blocks; in the browser a blocking read would panic).
    pub fn step(&mut self, params: &mut Params, grads: &mut Gradients, lr: f64) {
        let mut taken = Vec::new();
        let mut squares: Option<Tensor<1>> = None;
        let mut add = |s: Tensor<1>| {
            squares = Some(match squares.take() {
                None => s,
                Some(acc) => acc + s,
            })
        };
        params.for_each(|_, param| {
            taken.push(match param {
                ParamMut::Vector(t) => match t.grad_remove(grads) {
                    Some(g) => {
                        add(g.clone().square().sum());
                        Grad::Vector(g)
                    }
                    None => Grad::None,
                },
                ParamMut::Matrix(t, _) => match t.grad_remove(grads) {
                    Some(g) => {
                        add(g.clone().square().sum());
                        Grad::Matrix(g)
                    }
                    None => Grad::None,
                },
            })
        });
        let Some(squares) = squares else {
            return;
        };
        // As clip_grad_norm_: scale by max / (norm + 1e-6) when that is below 1.
        let norm = squares.sqrt().add_scalar(1e-6);
        let scale: Tensor<1> = (norm.ones_like() * self.max_grad_norm / norm).clamp_max(1.0);
        if self.states.is_empty() {
            self.states = taken
                .iter()
                .map(|g| match g {
                    Grad::Matrix(_) => State::Matrix(None),
                    _ => State::Vector(None),
                })
                .collect();
        }
        let mut taken = taken.into_iter();
        let mut states = self.states.iter_mut();
        let (with_decay, without_decay) = (&self.with_decay, &self.without_decay);
        params.for_each(|name, param| {
            let (Some(grad), Some(state)) = (taken.next(), states.next()) else {
                return;
            };
            let optim = if decays(name) {
                with_decay
            } else {
                without_decay
            };
            match (param, grad, state) {
                (ParamMut::Vector(t), Grad::Vector(g), State::Vector(s)) => {
                    let g = g * scale.clone();
                    let (updated, next) = optim.step(lr, t.clone().inner(), g, s.take());
                    *s = next;
                    *t = Tensor::from_inner(updated).require_grad();
                }
                (ParamMut::Matrix(t, _), Grad::Matrix(g), State::Matrix(s)) => {
                    let g = g * scale.clone().reshape([1, 1]);
                    let (updated, next) = optim.step(lr, t.clone().inner(), g, s.take());
                    *s = next;
                    *t = Tensor::from_inner(updated).require_grad();
                }
                _ => {}
            }
        });
    }
}

/// Puts every tensor of `params` on autodiff with gradients retained: the leaves of training.
pub fn track(params: &mut Params) {
    params.for_each(|_, param| match param {
        ParamMut::Vector(t) => *t = t.clone().inner().autodiff().require_grad(),
        ParamMut::Matrix(t, _) => *t = t.clone().inner().autodiff().require_grad(),
    });
}

#[cfg(test)]
mod tests {
    use super::learning_rate;

    #[test]
    fn schedule_warms_up_then_decays_linearly_to_zero() {
        // 10 steps, 4 of warm-up, peak 1: 0.25 0.5 0.75 1 | 1 5/6 4/6 3/6 2/6 1/6
        let lrs: Vec<f64> = (0..10).map(|s| learning_rate(s, 10, 4, 1.0)).collect();
        let want = [
            0.25,
            0.5,
            0.75,
            1.0,
            1.0,
            5.0 / 6.0,
            4.0 / 6.0,
            0.5,
            2.0 / 6.0,
            1.0 / 6.0,
        ];
        for (got, want) in lrs.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{lrs:?}");
        }
        assert_eq!(learning_rate(10, 10, 4, 1.0), 0.0);
        // No warm-up: the decay starts at the peak.
        assert_eq!(learning_rate(0, 4, 0, 2.0), 2.0);
    }
}
