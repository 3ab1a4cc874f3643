"""Words that are never a paper's own name: the field's abbreviations, models, tools,
datasets and metrics (upper-cased), which abstracts define or use far more often than they
introduce. :func:`db.seeds.derive.method_name` skips them; a name that several papers of one
library still share is hidden by the index (:mod:`db.index.names`).
"""

from __future__ import annotations

#: Upper-cased: "LSTM" covers "LSTM" and "Lstm".
FIELD_TERMS = frozenset({
    "LLM", "LLMS", "VLM", "MLLM", "RL", "MARL", "NLP", "CV", "CNN", "RNN", "GNN", "GAN", "VAE",
    "MLP", "VIT", "MOE", "SMOE", "SOTA", "AI", "AGI", "ML", "DNN", "LM", "PLM", "SGD", "GPU",
    "TPU", "API", "RAG", "KL", "MDP", "POMDP", "IID", "OOD", "MOO", "MTL", "STL", "QA", "VQA",
    "ASR", "TTS", "OCR", "MIL", "MOT", "ICL", "ICRL", "COT", "SFT", "RLHF", "DPO", "PPO", "LORA",
    "PEFT", "NAS", "IRL", "DRL", "BERT", "GPT", "CLIP", "IMAGENET", "COCO", "PDE", "ODE", "SDE",
    "FL", "PFL", "KD", "L2D",
    # the field's models, tools, datasets and metrics, which abstracts use far more often than
    # they introduce (the most shared derived names of the corpus of docs/benchmark.md)
    "LSTM", "CONVLSTM", "BILSTM", "GRU", "MCMC", "SVM", "CRF", "MRF", "PCA", "GCN", "GAT",
    "R-CNN", "CONVNET", "CONVNETS", "RESNET", "FCN", "RBM", "RELU", "NER", "SLAM", "SFM", "MAP",
    "MLE", "EM", "ROI", "NMS", "SIFT", "RANSAC", "ADMM", "L-BFGS", "BFGS", "UCB", "PAC", "RKHS",
    "MMD", "LASSO", "GLM", "SNN", "DAG", "NP-HARD", "T-SNE", "RGB", "RGB-D", "RGBD", "LIDAR",
    "MNIST", "CIFAR-10", "CIFAR-100", "KITTI", "PASCAL", "VOC", "BLEU", "ROUGE", "SQUAD", "GLUE",
    "NERF", "GPT-2", "GPT-3", "GPT-4", "T5", "ROBERTA", "WORDNET", "WIKIPEDIA", "YOUTUBE",
    "AUTOML", "SSL", "DRO", "SCM", "AUTOENCODER", "BM3D",
})
