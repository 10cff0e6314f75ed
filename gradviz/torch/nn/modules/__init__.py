"""torch.nn.modules: every module class, importable from here as in PyTorch."""
from .module import Module  # noqa: F401
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: F401
from .linear import Bilinear, Identity, Linear  # noqa: F401
from .conv import Conv1d, Conv2d  # noqa: F401
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool1d, MaxPool2d  # noqa: F401
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU, Softmax,  # noqa: F401
                         Softmin, Softplus, Tanh)
from .activation_more import (  # noqa: F401
    CELU, GLU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, Mish, PReLU, RReLU, SELU, Softmax2d, Softshrink,
    Softsign, Tanhshrink, Threshold)
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: F401
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,  # noqa: F401
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                      ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .pooling_more import AdaptiveAvgPool1d, AvgPool1d  # noqa: F401
from .pooling_nd import (AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,  # noqa: F401
                         AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .shuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle  # noqa: F401
from .fold import Fold, Unfold  # noqa: F401
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .normalization import GroupNorm, LayerNorm  # noqa: F401
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: F401
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss,  # noqa: F401
                   NLLLoss, SmoothL1Loss)
from .loss_more import (CosineEmbeddingLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa: F401
                        MarginRankingLoss, MultiLabelMarginLoss, MultiMarginLoss, NLLLoss2d, PoissonNLLLoss,
                        SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .norm_more import (BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, RMSNorm,  # noqa: F401
                        SyncBatchNorm)
from .conv_more import Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear  # noqa: F401
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,  # noqa: F401
                          TransformerEncoderLayer)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_") and n[0].isupper()]
