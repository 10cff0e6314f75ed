# gradviz explain sample: anomaly_nan
import torch
x = torch.tensor([0.0, 2.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    y = (x * x).sqrt().sum()        # d/dx sqrt(x*x) at 0 is 0/0
    y.backward()
