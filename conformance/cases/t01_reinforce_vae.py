# Lessons in the style of PyTorch's reinforcement-learning examples (REINFORCE with a
# softmax policy and Categorical sampling, actor-critic with a value head and
# smooth_l1_loss) and its variational autoencoder (reparameterisation, a summed binary
# cross entropy and the KL term), on tiny sizes with a made-up environment.
# Seeds are set with torch.random.manual_seed, which record.py does not shift: the values
# drawn after them are compared too, so they check PyTorch's random streams as well.
from collections import namedtuple
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical, Normal

# %%
class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


torch.random.manual_seed(543)
policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
print(eps, policy)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


state = np.array([0.01, -0.02, 0.03, 0.04])
actions = []
for t in range(6):
    action = select_action(state)
    actions.append(action)
    state = state + (0.1 if action == 1 else -0.1) * np.array([1.0, 0.5, -0.5, 0.25])
    policy.rewards.append(1.0)
print(actions, len(policy.saved_log_probs), policy.saved_log_probs[0].grad_fn)
policy.saved_log_probs[0]

# %%
def finish_episode(gamma=0.99):
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return returns, policy_loss


returns, policy_loss = finish_episode()
print(policy_loss.grad_fn, policy_loss.grad_fn.next_functions[0][0], len(policy.rewards))
returns, policy_loss, policy.affine2.weight.grad, policy.affine2.bias

# %%
torch.random.manual_seed(1)
probs = torch.tensor([[0.2, 0.8]], requires_grad=True)
m = Categorical(probs)
action = m.sample()
lp = m.log_prob(action)
ent = m.entropy()
(-lp * 2.0 - 0.01 * ent).sum().backward()
print(action, lp.grad_fn, ent.grad_fn, m.probs, m.logits)
m2 = Categorical(logits=torch.tensor([1.0, 2.0, 0.5]))
samples = m2.sample((8,))
samples, m2.log_prob(samples), probs.grad, m2.probs

# %%
SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class ActorCritic(nn.Module):
    def __init__(self):
        super(ActorCritic, self).__init__()
        self.affine1 = nn.Linear(4, 16)
        self.action_head = nn.Linear(16, 2)
        self.value_head = nn.Linear(16, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


torch.random.manual_seed(2)
model = ActorCritic()
optimizer = optim.Adam(model.parameters(), lr=3e-2)
state = np.array([0.02, 0.01, -0.03, 0.0], dtype=np.float32)
for t in range(5):
    probs, state_value = model(torch.from_numpy(state).float())
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    model.rewards.append(1.0 if action.item() == 0 else 0.5)
    state = (state * 0.9 + 0.05 * action.item()).astype(np.float32)
R = 0
policy_losses, value_losses, returns = [], [], []
for r in model.rewards[::-1]:
    R = r + 0.99 * R
    returns.insert(0, R)
returns = torch.tensor(returns)
returns = (returns - returns.mean()) / (returns.std() + eps)
for (log_prob, value), R in zip(model.saved_actions, returns):
    advantage = R - value.item()
    policy_losses.append(-log_prob * advantage)
    value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
optimizer.zero_grad()
loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
loss.backward()
optimizer.step()
print(loss.grad_fn, value_losses[0].grad_fn, policy_losses[0].grad_fn, state_value.shape)
loss, returns, model.value_head.weight.grad, model.action_head.bias

# %%
torch.random.manual_seed(3)
mu_head = nn.Linear(3, 2)
log_std = nn.Parameter(torch.zeros(2))
obs = torch.randn(4, 3)
dist = Normal(mu_head(obs), log_std.exp())
act = dist.sample()
logp = dist.log_prob(act).sum(-1)
adv = torch.tensor([0.5, -1.0, 2.0, 0.1])
pg_loss = -(logp * adv).mean()
pg_loss.backward()
print(logp.grad_fn, act.requires_grad, dist.entropy().sum(-1).grad_fn)
act, logp, pg_loss, log_std.grad, mu_head.weight.grad

# %%
class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(16, 8)
        self.fc21 = nn.Linear(8, 2)
        self.fc22 = nn.Linear(8, 2)
        self.fc3 = nn.Linear(2, 8)
        self.fc4 = nn.Linear(8, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 16))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


torch.random.manual_seed(4)
vae = VAE()
vae_opt = optim.Adam(vae.parameters(), lr=1e-3)
data = torch.rand(5, 1, 4, 4)
vae.train()
train_losses = []
for epoch in range(3):
    vae_opt.zero_grad()
    recon_batch, mu, logvar = vae(data)
    loss = loss_function(recon_batch, data, mu, logvar)
    loss.backward()
    train_losses.append(loss.item())
    vae_opt.step()
print([round(l, 4) for l in train_losses], recon_batch.grad_fn, mu.grad_fn, loss.grad_fn)
recon_batch, mu, logvar, loss, vae.fc21.weight.grad, vae.fc1.bias.grad

# %%
vae.eval()
with torch.no_grad():
    torch.random.manual_seed(5)
    sample = torch.randn(3, 2)
    sample = vae.decode(sample)
    recon, mu_e, logvar_e = vae(data[:2])
    test_loss = loss_function(recon, data[:2], mu_e, logvar_e).item()
print(sample.requires_grad, round(test_loss, 3))
comparison = torch.cat([data[:2].view(-1, 1, 4, 4), recon.view(2, 1, 4, 4)])
sample.view(3, 1, 4, 4).shape, comparison.shape, sample

# %%
x_bad = torch.tensor([0.5, 1.5])
F.binary_cross_entropy(torch.tensor([0.2, 0.7]), x_bad)

# %%
F.binary_cross_entropy(torch.tensor([0.2, 1.7]), torch.tensor([0.0, 1.0]))

# %%
F.binary_cross_entropy(torch.tensor([0.2, 0.7]), torch.tensor([[0.0, 1.0]]))

# %%
p = torch.tensor([0.0, 1.0, 0.5], requires_grad=True)
t = torch.tensor([0.0, 1.0, 1.0])
bce = F.binary_cross_entropy(p, t, reduction='none')
bce.sum().backward()
print(bce.grad_fn)
bce, p.grad, F.binary_cross_entropy_with_logits(torch.tensor([100.0, -100.0]), torch.tensor([0.0, 1.0]))

# %%
torch.random.manual_seed(6)
mu = torch.randn(4, 2, requires_grad=True)
logvar = torch.randn(4, 2, requires_grad=True)
q = Normal(mu, torch.exp(0.5 * logvar))
z = q.rsample()
p_prior = Normal(torch.zeros_like(mu), torch.ones_like(logvar))
kl_analytic = torch.distributions.kl_divergence(q, p_prior).sum()
kl_manual = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
kl_analytic.backward()
print(z.grad_fn, kl_analytic.grad_fn, torch.allclose(kl_analytic, kl_manual))
z, kl_analytic, kl_manual, mu.grad, logvar.grad
