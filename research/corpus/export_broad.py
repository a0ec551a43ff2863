"""A broad corpus for held-out accuracy: many architectures, random weights, small inputs.

Every model is built offline from its architecture or a small random config (torchvision with
weights=None, timm with pretrained=False, transformers from_config), in float32 and bfloat16,
exported with torch.export.export(..., strict=False) on the chosen device (CUDA on the GPU
machine), and saved weight-stripped (validate/strip_weights.py) as
<out>/<family>__<model>_<dtype>.pt2, where family is the architecture family (resnet, vit,
bert, t5, ...) so that accuracy can be computed leave-one-family-out. One JSON line per entry
goes to <out>/manifest-<shard>.jsonl (inputs, parameters, export seconds, nodes, or the error).

Sizes: images batch 2 at the model's own input size (224 unless the model fixes another);
text batch 2 x 128 tokens; audio batch 2 (16000 samples or 80x3000 features); video batch 1-2.

    python3 research/corpus/export_broad.py --out /tmp/broad --shard 0/8 --timeout 150
    python3 research/corpus/export_broad.py --list
    python3 research/corpus/export_broad.py --device cpu --only resnet18,bert --dtypes fp32 --out /tmp/b

`--set fresh` exports instead architectures of families the broad corpus does not hold (timm and
transformers families added since, or left out): a hold-out whose first measurement is an
out-of-sample figure for rules that were never checked against it (data/corpus/fresh/).
`--set fresh2`: an unmeasured variant of each timm family already held, at batch 4
(data/corpus/fresh2/). `--set fresh3`: torchvision convolutional classifiers at batch 8 and
160 x 160 (data/corpus/fresh3/). `--set fresh4`: convolutional timm variants no corpus holds, at
batch 2 and 192 x 192 (data/corpus/fresh4/). `--set fresh5`: 69 timm models of every kind no corpus
holds, at batch 3 (data/corpus/fresh5/). `--set fresh6`: 69 more, one per timm module, at batch 5
(data/corpus/fresh6/).
"""
import argparse
import contextlib
import gc
import json
import os
import signal
import sys
import time
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validate"))
from strip_weights import strip_weights  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
B, SEQ = 2, 128
MAX_PARAMS = 250e6

# module basename -> family (torchvision and timm name the same architectures alike)
FAMILY_ALIAS = {"vision_transformer": "vit", "swin_transformer": "swin", "mobilenetv2": "mobilenet",
                "mobilenetv3": "mobilenet", "shufflenetv2": "shufflenet", "swin_transformer_v2": "swin",
                "swin_transformer_v2_cr": "swin", "deit": "vit", "vision_transformer_hybrid": "vit",
                "efficientnet_v2": "efficientnet", "inception_v3": "inception", "inception_v4": "inception",
                "googlenet": "inception", "densenet": "densenet", "resnetv2": "resnet", "sknet": "resnet",
                "video_resnet": "video_resnet"}


class Entry:
    def __init__(self, family, model, build, inputs, note=""):
        self.family, self.model, self.build, self.inputs, self.note = family, model, build, inputs, note


def fam_of(module_name):
    base = module_name.rsplit(".", 1)[-1]
    return FAMILY_ALIAS.get(base, base).replace("_", "-")


def images(h=224, w=None, n=B, c=3):
    def make(device, dtype):
        return (torch.randn(n, c, h, w or h, device=device, dtype=dtype),), {}
    return make


# ------------------------------------------------------------------------------ torchvision
def tv_entries():
    import torchvision
    out = []
    skip = {"vit_h_14", "regnet_y_128gf", "vit_l_16", "vit_l_32"}  # > MAX_PARAMS
    for name in torchvision.models.list_models(module=torchvision.models):
        if name in skip:
            continue
        size = {"inception_v3": 299}.get(name, 224)
        kw = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}

        def build(name=name, kw=kw):
            return torchvision.models.get_model(name, weights=None, **kw)
        fam = fam_of(getattr(torchvision.models, name).__module__)
        out.append(Entry(fam, name, build, images(size)))
    for name in torchvision.models.list_models(module=torchvision.models.segmentation):
        def build(name=name):
            return torchvision.models.get_model(name, weights=None, weights_backbone=None, aux_loss=False)
        out.append(Entry("segmentation", name, build, images(224)))
    for name in torchvision.models.list_models(module=torchvision.models.video):
        if name in ("swin3d_b", "swin3d_s"):
            continue
        shape = {"mvit_v1_b": (1, 16, 224), "mvit_v2_s": (1, 16, 224), "swin3d_t": (1, 16, 224),
                 "s3d": (1, 16, 224)}.get(name, (2, 16, 112))

        def build(name=name):
            return torchvision.models.get_model(name, weights=None)

        def inp(device, dtype, shape=shape):
            n, t, s = shape
            return (torch.randn(n, 3, t, s, s, device=device, dtype=dtype),), {}
        fam = {"mvit_v1_b": "mvit", "mvit_v2_s": "mvit", "swin3d_t": "swin3d", "s3d": "s3d"}.get(name, "video-resnet")
        out.append(Entry(fam, name, build, inp))

    def raft():
        return torchvision.models.optical_flow.raft_small(weights=None)

    def raft_in(device, dtype):
        return (torch.randn(1, 3, 128, 128, device=device, dtype=dtype),
                torch.randn(1, 3, 128, 128, device=device, dtype=dtype)), {"num_flow_updates": 4}
    out.append(Entry("raft", "raft_small", raft, raft_in))

    def fpn():
        from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
        return resnet_fpn_backbone(backbone_name="resnet50", weights=None, trainable_layers=0)
    out.append(Entry("detection", "resnet50_fpn_backbone", fpn, images(320)))

    def fpn_mb():
        from torchvision.models.detection.backbone_utils import mobilenet_backbone
        return mobilenet_backbone(backbone_name="mobilenet_v3_large", weights=None, fpn=True, trainable_layers=0)
    out.append(Entry("detection", "mobilenet_v3_fpn_backbone", fpn_mb, images(320)))

    def frcnn():
        return torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)

    def frcnn_in(device, dtype):
        return ([torch.randn(3, 320, 320, device=device, dtype=dtype)],), {}
    out.append(Entry("detection", "fasterrcnn_mobilenet_v3_large_320_fpn", frcnn, frcnn_in))
    return out


# ------------------------------------------------------------------------------ timm
TIMM = ['resnet50d', 'resnetv2_50', 'seresnet50', 'efficientnet_b0', 'mobilenetv3_large_100', 'mobilenetv4_conv_small',
        'ghostnet_100', 'regnetz_b16', 'convnext_atto', 'convnextv2_atto', 'vit_tiny_patch16_224', 'deit_tiny_patch16_224',
        'deit3_small_patch16_224', 'swin_tiny_patch4_window7_224', 'swinv2_cr_tiny_ns_224', 'cait_xxs24_224',
        'coat_lite_tiny', 'convit_tiny', 'crossvit_tiny_240', 'pit_ti_224', 'levit_128s', 'mixer_s16_224',
        'resmlp_12_224', 'gmlp_ti16_224', 'poolformer_s12', 'efficientformer_l1', 'efficientformerv2_s0',
        'mobilevit_xxs', 'mobilevitv2_050', 'edgenext_xx_small', 'fastvit_t8', 'repvgg_a0', 'dla34', 'dpn68',
        'hrnet_w18_small', 'cspresnet50', 'cspdarknet53', 'darknet53', 'res2net50_26w_4s', 'resnest14d', 'skresnet18',
        'selecsls42b', 'tinynet_a', 'rexnet_100', 'lcnet_050', 'mixnet_s', 'ese_vovnet19b_dw', 'hgnet_tiny',
        'coatnet_0_rw_224', 'maxvit_tiny_rw_224', 'twins_pcpvt_small', 'pvt_v2_b0', 'xcit_nano_12_p16_224',
        'volo_d1_224', 'sequencer2d_s', 'eva02_tiny_patch14_224', 'efficientvit_b0', 'efficientvit_m0',
        'tiny_vit_5m_224', 'nest_tiny', 'gcvit_xxtiny', 'davit_tiny', 'focalnet_tiny_srf', 'inception_next_tiny',
        'rdnet_tiny', 'starnet_s1', 'repghostnet_050', 'nfnet_l0', 'inception_v4', 'xception41', 'mambaout_femto',
        'hiera_tiny_224', 'botnet26t_256', 'halonet26t', 'lambda_resnet26t', 'ecaresnet26t', 'gernet_s',
        'hardcorenas_a', 'fbnetc_100', 'tresnet_m', 'convmixer_768_32', 'cs3darknet_s', 'nextvit_small',
        'twins_svt_small', 'tnt_s_patch16_224', 'visformer_tiny', 'mvitv2_tiny', 'ghostnetv2_100', 'fasternet_t0',
        'shvit_s1', 'vitamin_small_224', 'beit_base_patch16_224']


# timm families absent from TIMM above (one small member each): the fresh hold-out.
FRESH_TIMM = ['cpubone_s0', 'csatv2', 'cspnext_tiny', 'efficientvim_m1', 'sam2_hiera_tiny', 'iformer_s',
              'inception_resnet_v2', 'lcnetv2_small', 'lowformer_b0', 'repvit_m1', 'legacy_seresnet18',
              'legacy_seresnext26_32x4d', 'swiftformer_xs', 'vit_relpos_medium_patch16_224', 'samvit_base_patch16_224',
              'legacy_xception', 'naflexvit_base_patch16_gap', 'mobilenetv5_300m_enc']

# One unmeasured variant (under 40M parameters, input at most 288 px) of each timm family the
# corpora above hold, at batch 4: models never measured, of families the rules were checked
# against (chosen by a fixed-seed shuffle of each family's other models).
FRESH2_TIMM = ['halo2botnet50ts_256', 'mobileone_s1', 'cait_xxs36_224', 'coat_lite_small', 'convit_small',
               'convmixer_1024_20_ks9_p14', 'convnext_femto', 'cpubone_b2pt5_dwnorm', 'crossvit_small_240',
               'cs3darknet_focus_m', 'cspnext_m', 'deit_small_distilled_patch16_224', 'dla60_res2next', 'dpn92',
               'edgenext_small_rw', 'efficientformer_l3', 'efficientformerv2_s1', 'efficientnet_es_pruned',
               'efficientvim_m4', 'efficientvit_b2', 'efficientvit_m1', 'vit_small_patch16_dinov3', 'fasternet_s',
               'fastvit_mci0', 'gcvit_tiny', 'ghostnetv3_050', 'hardcorenas_f', 'hgnet_small',
               'hiera_small_abswin_256', 'hieradet_small', 'hrnet_w30', 'iformer_l', 'inception_next_atto',
               'lcnetv2_large', 'levit_128', 'lowformer_e2', 'mambaout_tiny', 'maxvit_rmlp_pico_rw_256',
               'poolformer_s24', 'resmlp_24_224', 'tf_mobilenetv3_large_minimal_100', 'mobilevitv2_125',
               'mvitv2_small_cls', 'nest_small_jx', 'pit_s_224', 'pvt_v2_b2', 'repghostnet_130', 'repvit_m1_0',
               'res2net50_14w_8s', 'resnest50d_1s4x24d', 'resnet26d', 'resnetv2_34', 'rexnetr_150', 'selecsls42',
               'legacy_seresnet34', 'sequencer2d_m', 'shvit_s2', 'skresnet50', 'starnet_s100', 'swiftformer_l1',
               'swin_s3_tiny_224', 'tiny_vit_11m_224', 'tnt_s_legacy_patch16_224', 'vit_dwee_patch16_reg1_gap_256',
               'vit_relpos_medium_patch16_rpn_224', 'ese_vovnet19b_slim', 'xcit_small_12_p16_224']


def timm_entries(names=None, batch=B, size=None):
    import timm
    out = []
    for name in names or TIMM:
        def build(name=name):
            return timm.create_model(name, pretrained=False)

        def inp(device, dtype, name=name):
            cfg = timm.get_pretrained_cfg(name)
            shape = (cfg.input_size if cfg is not None and cfg.input_size else (3, 224, 224))
            if size:
                shape = (shape[0], size, size)
            return (torch.randn(batch, *shape, device=device, dtype=dtype),), {}
        try:
            mod = timm.models.model_entrypoint(name).__module__
        except Exception:  # noqa: BLE001
            mod = name
        out.append(Entry(fam_of(mod), name, build, inp))
    return out


# ------------------------------------------------------------------------------ transformers
SMALL = dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024, vocab_size=1000,
             max_position_embeddings=512)


def hf(cfg_name, model_cls="AutoModel", mask=True, extra=None, inputs="text", small=SMALL, seq=SEQ):
    def build():
        import transformers
        cfg_cls = getattr(transformers, cfg_name)
        kw = dict(small)
        kw.update(extra or {})
        cfg = cfg_cls(**kw)
        cls = getattr(transformers, model_cls)
        if not model_cls.startswith("Auto"):
            return cls(cfg)
        try:
            return cls.from_config(cfg, attn_implementation="sdpa")
        except ValueError as e:  # no SDPA path in this architecture: its own (eager) attention
            if "scaled_dot_product_attention" not in str(e):
                raise
            return cls.from_config(cfg, attn_implementation="eager")

    def text(device, dtype):
        g = torch.Generator().manual_seed(0)
        kw = {"input_ids": torch.randint(3, 900, (B, seq), generator=g).to(device)}
        if mask:
            m = torch.ones(B, seq, dtype=torch.int64)
            m[1, seq // 2:] = 0  # a padded second sequence
            kw["attention_mask"] = m.to(device)
        if inputs == "seq2seq":
            kw["decoder_input_ids"] = torch.randint(3, 900, (B, seq // 2), generator=g).to(device)
        elif inputs == "clip":
            kw["pixel_values"] = torch.randn(B, 3, 224, 224, device=device, dtype=dtype)
        return (), kw

    def pixels(device, dtype):
        return (), {"pixel_values": torch.randn(B, 3, 224, 224, device=device, dtype=dtype)}

    def audio_values(device, dtype):
        kw = {"input_values": torch.randn(B, 16000, device=device, dtype=dtype)}
        if mask:
            kw["attention_mask"] = torch.ones(B, 16000, dtype=torch.int64, device=device)
        return (), kw

    def audio_features(device, dtype):
        return (), {"input_features": torch.randn(B, 80, 3000, device=device, dtype=dtype)}
    fn = {"text": text, "seq2seq": text, "clip": text, "pixels": pixels, "audio_values": audio_values,
          "audio_features": audio_features}[inputs]
    return build, fn


def hf_entries():
    E = []

    def add(family, model, spec):
        E.append(Entry(family, model, *spec))
    enc = [("bert", "BertConfig"), ("roberta", "RobertaConfig"), ("distilbert", "DistilBertConfig"),
           ("albert", "AlbertConfig"), ("electra", "ElectraConfig"), ("deberta", "DebertaConfig"),
           ("deberta-v2", "DebertaV2Config"), ("xlm-roberta", "XLMRobertaConfig"), ("mpnet", "MPNetConfig"),
           ("mobilebert", "MobileBertConfig"), ("squeezebert", "SqueezeBertConfig"), ("camembert", "CamembertConfig"),
           ("ernie", "ErnieConfig"), ("roformer", "RoFormerConfig"), ("nystromformer", "NystromformerConfig"),
           ("funnel", "FunnelConfig"), ("convbert", "ConvBertConfig"), ("modernbert", "ModernBertConfig")]
    special = {"DistilBertConfig": dict(dim=256, n_layers=2, n_heads=4, hidden_dim=1024, vocab_size=1000),
               "FunnelConfig": dict(d_model=256, n_head=4, d_head=64, d_inner=1024, vocab_size=1000, block_sizes=[1, 1]),
               "MobileBertConfig": dict(SMALL, embedding_size=128, intra_bottleneck_size=64, true_hidden_size=64),
               "AlbertConfig": dict(SMALL, embedding_size=128),
               "ModernBertConfig": dict(SMALL, global_attn_every_n_layers=2, local_attention=64, pad_token_id=0,
                                            bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2)}
    for fam, cfg in enc:
        small = special.get(cfg, SMALL)
        add(fam, fam.replace("-", "_") + "_mask", hf(cfg, mask=True, small=small))
        add(fam, fam.replace("-", "_") + "_nomask", hf(cfg, mask=False, small=small))
    dec = [("gpt2", "GPT2Config", dict(n_embd=256, n_layer=2, n_head=4, vocab_size=1000, n_positions=512)),
           ("gpt-neo", "GPTNeoConfig", dict(hidden_size=256, num_layers=2, num_heads=4, vocab_size=1000,
                                            attention_types=[[["global", "local"], 1]], window_size=64)),
           ("gptj", "GPTJConfig", dict(n_embd=256, n_layer=2, n_head=4, vocab_size=1000, rotary_dim=32)),
           ("gpt-neox", "GPTNeoXConfig", SMALL), ("opt", "OPTConfig", dict(hidden_size=256, num_hidden_layers=2,
                                                                           num_attention_heads=4, ffn_dim=1024,
                                                                           vocab_size=1000, word_embed_proj_dim=256)),
           ("llama", "LlamaConfig", dict(SMALL, num_key_value_heads=2)), ("mistral", "MistralConfig", dict(SMALL, num_key_value_heads=2)),
           ("qwen2", "Qwen2Config", dict(SMALL, num_key_value_heads=2)), ("qwen3", "Qwen3Config", dict(SMALL, num_key_value_heads=2, head_dim=64)),
           ("phi", "PhiConfig", SMALL), ("phi3", "Phi3Config", dict(SMALL, pad_token_id=0)),
           ("falcon", "FalconConfig", dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, vocab_size=1000)),
           ("gemma", "GemmaConfig", dict(SMALL, num_key_value_heads=1, head_dim=64)),
           ("gemma2", "Gemma2Config", dict(SMALL, num_key_value_heads=2, head_dim=64, sliding_window=64)),
           ("stablelm", "StableLmConfig", SMALL), ("bloom", "BloomConfig", dict(hidden_size=256, n_layer=2, n_head=4, vocab_size=1000)),
           ("codegen", "CodeGenConfig", dict(n_embd=256, n_layer=2, n_head=4, vocab_size=1000, rotary_dim=32)),
           ("starcoder2", "Starcoder2Config", dict(SMALL, num_key_value_heads=2)), ("olmo", "OlmoConfig", SMALL),
           ("granite", "GraniteConfig", SMALL), ("mpt", "MptConfig", dict(d_model=256, n_layers=2, n_heads=4, vocab_size=1000)),
           ("biogpt", "BioGptConfig", SMALL), ("xglm", "XGLMConfig", dict(d_model=256, num_layers=2, attention_heads=4,
                                                                           ffn_dim=1024, vocab_size=1000))]
    for fam, cfg, small in dec:
        add(fam, fam.replace("-", "_"), hf(cfg, "AutoModelForCausalLM", mask=False, small=small, extra=dict(use_cache=False)))
        if fam in ("gpt2", "llama", "opt", "qwen2", "phi", "falcon", "mistral", "bloom"):
            add(fam, fam.replace("-", "_") + "_mask", hf(cfg, "AutoModelForCausalLM", mask=True, small=small,
                                                          extra=dict(use_cache=False)))
    s2s = [("t5", "T5Config", dict(d_model=256, d_kv=64, d_ff=1024, num_layers=2, num_heads=4, vocab_size=1000)),
           ("t5", "T5Config_gated", dict(d_model=256, d_kv=64, d_ff=1024, num_layers=2, num_heads=4, vocab_size=1000,
                                         feed_forward_proj="gated-gelu")),
           ("bart", "BartConfig", dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                       decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000)),
           ("mbart", "MBartConfig", dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                         decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000)),
           ("pegasus", "PegasusConfig", dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                             decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000)),
           ("marian", "MarianConfig", dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                           decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000,
                                           decoder_start_token_id=0, pad_token_id=1))]
    for fam, cfg, small in s2s:
        name = "t5_gated" if cfg.endswith("_gated") else fam
        add(fam, name + "_mask", hf(cfg.replace("_gated", ""), "AutoModel", mask=True, small=small, inputs="seq2seq",
                                    extra=dict(use_cache=False)))
        if fam == "t5" and name == "t5":
            add(fam, "t5_encoder_nomask", (lambda small=small: __import__("transformers").T5EncoderModel(
                __import__("transformers").T5Config(**small)), hf("T5Config", mask=False, small=small)[1]))
    vis = [("vit", "ViTConfig", dict(SMALL, image_size=224, patch_size=16)),
           ("vit", "DeiTConfig", dict(SMALL, image_size=224, patch_size=16)),
           ("beit", "BeitConfig", dict(SMALL, image_size=224, patch_size=16, use_relative_position_bias=True)),
           ("dinov2", "Dinov2Config", dict(SMALL, image_size=224, patch_size=14)),
           ("swin", "SwinConfig", dict(embed_dim=48, depths=[2, 2], num_heads=[2, 4], image_size=224)),
           ("convnext", "ConvNextConfig", dict(hidden_sizes=[48, 96, 192, 384], depths=[1, 1, 2, 1])),
           ("convnextv2", "ConvNextV2Config", dict(hidden_sizes=[48, 96, 192, 384], depths=[1, 1, 2, 1])),
           ("segformer", "SegformerConfig", dict(num_encoder_blocks=4, depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 160, 256])),
           ("resnet", "ResNetConfig", dict(depths=[1, 1, 1, 1])),
           ("levit", "LevitConfig", {}), ("mobilevit", "MobileViTConfig", {}),
           ("metaformer", "PoolFormerConfig", dict(depths=[1, 1, 2, 1])), ("regnet", "RegNetConfig", dict(depths=[1, 1, 2, 1]))]
    for fam, cfg, small in vis:
        add(fam, cfg[:-len("Config")].lower() + "_hf", hf(cfg, "AutoModel", small=small, inputs="pixels"))
    aud = [("wav2vec2", "Wav2Vec2Config", "AutoModel", "audio_values", dict(SMALL, conv_dim=[64] * 7, num_feat_extract_layers=7)),
           ("hubert", "HubertConfig", "AutoModel", "audio_values", dict(SMALL, conv_dim=[64] * 7)),
           ("whisper", "WhisperConfig", "WhisperForAudioClassification", "audio_features",
            dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                 encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000, num_mel_bins=80))]
    for fam, cfg, cls, inp, small in aud:
        add(fam, fam + "_encoder", hf(cfg, cls, mask=False, small=small, inputs=inp))
    clip_small = dict(text_config=dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024,
                                       vocab_size=1000, max_position_embeddings=SEQ),
                      vision_config=dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024,
                                         image_size=224, patch_size=32), projection_dim=128)
    add("clip", "clip", hf("CLIPConfig", "AutoModel", mask=True, small=clip_small, inputs="clip"))
    sig_small = dict(text_config=dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024,
                                      vocab_size=1000, max_position_embeddings=SEQ),
                     vision_config=dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024,
                                        image_size=224, patch_size=16))
    add("siglip", "siglip", hf("SiglipConfig", "AutoModel", mask=False, small=sig_small, inputs="clip"))
    return E


def fresh_hf_entries():
    """transformers architectures of families hf_entries() leaves out."""
    E = []

    def add(family, model, spec):
        E.append(Entry(family, model, *spec))
    for fam, cfg, small in [("megatron-bert", "MegatronBertConfig", SMALL), ("data2vec-text", "Data2VecTextConfig", SMALL),
                            ("rembert", "RemBertConfig", dict(SMALL, input_embedding_size=128, output_embedding_size=128)),
                            ("esm", "EsmConfig", dict(SMALL, pad_token_id=1, mask_token_id=2)),
                            ("xlnet", "XLNetConfig", dict(d_model=256, n_layer=2, n_head=4, d_inner=1024, vocab_size=1000))]:
        add(fam, fam.replace("-", "_") + "_mask", hf(cfg, mask=True, small=small))
        add(fam, fam.replace("-", "_") + "_nomask", hf(cfg, mask=False, small=small))
    moe = dict(SMALL, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2)
    for fam, cfg, small in [("gpt-bigcode", "GPTBigCodeConfig", dict(n_embd=256, n_layer=2, n_head=4, vocab_size=1000)),
                            ("persimmon", "PersimmonConfig", SMALL), ("cohere", "CohereConfig", dict(SMALL, num_key_value_heads=2)),
                            ("mixtral", "MixtralConfig", moe),
                            ("qwen2-moe", "Qwen2MoeConfig", dict(SMALL, num_key_value_heads=2, num_experts=4, num_experts_per_tok=2,
                                                                 moe_intermediate_size=256, shared_expert_intermediate_size=512)),
                            ("olmoe", "OlmoeConfig", dict(SMALL, num_experts=4, num_experts_per_tok=2)),
                            ("mamba", "MambaConfig", dict(hidden_size=256, num_hidden_layers=2, vocab_size=1000, state_size=16))]:
        add(fam, fam.replace("-", "_"), hf(cfg, "AutoModelForCausalLM", mask=False, small=small, extra=dict(use_cache=False)))
    s2s = dict(d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
               encoder_ffn_dim=1024, decoder_ffn_dim=1024, vocab_size=1000)
    for fam, cfg, small in [("mt5", "MT5Config", dict(d_model=256, d_kv=64, d_ff=1024, num_layers=2, num_heads=4, vocab_size=1000)),
                            ("switch-transformers", "SwitchTransformersConfig",
                             dict(d_model=256, d_kv=64, d_ff=1024, num_layers=2, num_decoder_layers=2, num_heads=4,
                                  vocab_size=1000, num_experts=4, num_sparse_encoder_layers=1, num_sparse_decoder_layers=1)),
                            ("blenderbot", "BlenderbotConfig", s2s), ("m2m100", "M2M100Config", s2s)]:
        add(fam, fam.replace("-", "_") + "_mask", hf(cfg, "AutoModel", mask=True, small=small, inputs="seq2seq",
                                                     extra=dict(use_cache=False)))
    for fam, cfg, small in [("swinv2", "Swinv2Config", dict(embed_dim=48, depths=[2, 2], num_heads=[2, 4], image_size=224)),
                            ("data2vec-vision", "Data2VecVisionConfig", dict(SMALL, image_size=224, patch_size=16,
                                                                             use_relative_position_bias=True)),
                            ("bit", "BitConfig", dict(depths=[1, 1, 1, 1])), ("yolos", "YolosConfig", dict(SMALL, image_size=[224, 224]))]:
        add(fam, cfg[:-len("Config")].lower() + "_hf", hf(cfg, "AutoModel", small=small, inputs="pixels"))
    for fam, cfg in [("wavlm", "WavLMConfig"), ("sew", "SEWConfig"), ("unispeech", "UniSpeechConfig"),
                     ("data2vec-audio", "Data2VecAudioConfig")]:
        add(fam, fam.replace("-", "_") + "_encoder", hf(cfg, "AutoModel", mask=False, inputs="audio_values",
                                                        small=dict(SMALL, conv_dim=[64] * 7)))
    return E


def fresh_entries():
    return timm_entries(FRESH_TIMM) + fresh_hf_entries()


def fresh2_entries():
    return timm_entries(FRESH2_TIMM, batch=4)


# torchvision convolutional classifiers at a batch and resolution no corpus here uses (8 x
# 160 x 160): the same architectures at other convolution shapes.
FRESH3_TV = ["resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "densenet121", "mobilenet_v2",
             "mobilenet_v3_large", "efficientnet_b0", "efficientnet_v2_s", "regnet_y_800mf", "regnet_x_1_6gf",
             "shufflenet_v2_x1_0", "mnasnet1_0", "squeezenet1_1", "convnext_tiny", "googlenet", "vgg11_bn",
             "resnet152"]


# Convolutional timm variants no corpus here holds, at batch 2 and 192 x 192 (a size none of the
# corpora uses): convolution shapes the sweeps and the rules have not seen.
FRESH4_TIMM = ['resnet34', 'resnext26ts', 'regnety_016', 'efficientnet_b1', 'mobilenetv3_small_100',
               'mobilenetv4_conv_medium', 'ghostnet_130', 'dla46_c', 'dpn48b', 'densenet121', 'cspresnext50',
               'cs3darknet_m', 'res2next50', 'resnest26d', 'skresnet34', 'selecsls60', 'tinynet_c', 'rexnet_130',
               'lcnet_100', 'mixnet_m', 'ese_vovnet39b', 'hgnetv2_b0', 'gernet_m', 'fbnetv3_b', 'spnasnet_100',
               'mnasnet_100', 'semnasnet_075', 'repvgg_a1', 'nf_regnet_b0', 'xception41p', 'inception_v3',
               'convnext_pico', 'efficientnetv2_rw_t', 'mobileone_s0', 'regnetx_004', 'seresnext26d_32x4d',
               'vgg11', 'ecaresnet50d_pruned']


def fresh4_entries():
    return timm_entries(FRESH4_TIMM, batch=2, size=192)


# timm models (convolutional, transformer, hybrid and MLP) no corpus here holds, at batch 3 (a
# batch none of the corpora uses) and their own resolution: the hold-out of the rules that
# learned from fresh4.
FRESH5_TIMM = ['resnet101d', 'regnety_032', 'efficientnet_b3', 'mobilenetv4_hybrid_medium', 'convnext_nano',
               'convnextv2_pico', 'vit_small_patch16_224', 'deit_small_patch16_224', 'levit_192', 'pvt_v2_b1',
               'coatnet_nano_rw_224', 'maxvit_nano_rw_256', 'efficientformerv2_s2', 'fastvit_sa12', 'repvit_m0_9',
               'ghostnetv2_130', 'rexnetr_200', 'mixnet_l', 'tf_efficientnet_b2', 'resnet50_gn', 'resnetaa50d',
               'seresnet33ts', 'gcresnet33ts', 'eca_nfnet_l0', 'dla60x', 'hrnet_w18_small_v2', 'cs3sedarknet_l',
               'dpn68b', 'vovnet39a', 'xception65p', 'sebotnet33ts_256', 'eca_halonext26ts', 'lambda_resnet50ts',
               'poolformerv2_s12', 'convformer_s18', 'caformer_s18', 'edgenext_small', 'mobilevit_xs',
               'tiny_vit_21m_224', 'twins_svt_base', 'vit_base_patch32_224', 'beitv2_base_patch16_224',
               'swin_s3_small_224', 'nextvit_base', 'inception_next_small', 'davit_small', 'focalnet_small_srf',
               'gcvit_xtiny', 'xcit_tiny_24_p16_224', 'crossvit_9_240', 'cait_xxs24_384', 'volo_d2_224',
               'mvitv2_small', 'efficientvit_b1', 'efficientvit_m2', 'starnet_s2', 'rdnet_small', 'fasternet_t1',
               'shvit_s3', 'vitamin_base_224', 'mambaout_kobe', 'hiera_base_224', 'sequencer2d_l', 'gmlp_s16_224',
               'resmlp_big_24_224', 'mixer_b16_224', 'convmixer_1536_20', 'nest_base', 'coat_lite_mini']


def fresh5_entries():
    return timm_entries(FRESH5_TIMM, batch=3)


# One timm model from each timm module that still has models no corpus here holds, drawn with
# random.Random(6) after leaving out giant, high-resolution and foundation-model variants (slow to
# export): at batch 5 and their own resolution, exported and measured on the GPU machine. The
# hold-out of the rules that learned from fresh5.
FRESH6_TIMM = ['eca_botnext26ts_256', 'repvgg_a2', 'cait_s24_224', 'coat_mini', 'convnext_atto_ols',
               'cpubone_b1_bfrobust', 'crossvit_9_dagger_240', 'csatv2_21m', 'sedarknet21', 'cspnext_x',
               'deit_tiny_distilled_patch16_224', 'densenet264d', 'dla46x_c', 'dpn98', 'edgenext_x_small',
               'test_efficientnet_ln', 'efficientvim_m3_dist', 'efficientvit_b3', 'efficientvit_m3',
               'vit_small_patch16_rope_ape_224', 'fasternet_t2', 'fastvit_mci1', 'focalnet_tiny_lrf', 'gcvit_small',
               'ghostnet_050', 'hardcorenas_d', 'hgnetv2_b5', 'hiera_small_224', 'hrnet_w40', 'iformer_h',
               'levit_conv_256d', 'lowformer_b15', 'test_mambaout', 'coatnext_nano_rw_224', 'caformer_s36',
               'gmixer_12_224', 'mobilenetv4_conv_small_050', 'mobilenetv5_300m', 'mobilevitv2_200', 'nest_tiny_jx',
               'nf_resnet50', 'pit_b_distilled_224', 'pvt_v2_b5', 'regnetv_064', 'repghostnet_200', 'repvit_m2',
               'res2net50_26w_8s', 'resnest50d_4s2x40d', 'resnetrs200', 'resnetv2_18', 'rexnet_300', 'selecsls60b',
               'legacy_senet154', 'shvit_s4', 'skresnet50d', 'starnet_s3', 'swiftformer_s',
               'swin_small_patch4_window7_224', 'swinv2_tiny_window8_256', 'swinv2_cr_tiny_224', 'tnt_b_patch16_224',
               'visformer_small', 'vit_betwixt_patch16_reg1_gap_256', 'vit_small_r26_s32_224',
               'vit_relpos_small_patch16_224', 'volo_d3_224', 'eca_vovnet39b', 'xception71', 'xcit_tiny_12_p16_224']


def fresh6_entries():
    return timm_entries(FRESH6_TIMM, batch=5)


def fresh3_entries():
    import torchvision
    out = []
    for name in FRESH3_TV:
        kw = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}

        def build(name=name, kw=kw):
            return torchvision.models.get_model(name, weights=None, **kw)
        out.append(Entry(fam_of(getattr(torchvision.models, name).__module__), name + "_b8_160", build,
                         images(160, n=8)))
    return out


# ------------------------------------------------------------------------------ recurrent
class SeqModel(torch.nn.Module):
    def __init__(self, cell, layers, bidir, batch_first=True, hidden=256):
        super().__init__()
        self.emb = torch.nn.Embedding(1000, 128)
        cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[cell]
        self.rnn = cls(128, hidden, layers, batch_first=batch_first, bidirectional=bidir)
        self.head = torch.nn.Linear(hidden * (2 if bidir else 1), 10)
        self.batch_first = batch_first

    def forward(self, ids):
        x = self.emb(ids)
        if not self.batch_first:
            x = x.transpose(0, 1)
        y, _ = self.rnn(x)
        return self.head(y)


def rnn_entries():
    out = []
    for cell in ("lstm", "gru", "rnn"):
        for layers, bidir, seq in ((1, False, 32), (2, False, 64), (2, True, 64), (3, True, 16)):
            for bf in ((True, False) if layers == 2 and not bidir else (True,)):
                name = f"{cell}_l{layers}{'_bi' if bidir else ''}_s{seq}{'' if bf else '_seqfirst'}"

                def inp(device, dtype, seq=seq):
                    return (torch.randint(0, 1000, (B, seq), device=device),), {}
                out.append(Entry("rnn", name, lambda cell=cell, layers=layers, bidir=bidir, bf=bf: SeqModel(cell, layers, bidir, bf), inp))
    return out


def all_entries(which="broad"):
    out = []
    sets = {"broad": (tv_entries, timm_entries, hf_entries, rnn_entries), "fresh": (fresh_entries,),
            "fresh2": (fresh2_entries,), "fresh3": (fresh3_entries,), "fresh4": (fresh4_entries,), "fresh5": (fresh5_entries,),
            "fresh6": (fresh6_entries,)}
    for fn in sets[which]:
        try:
            out += fn()
        except Exception as e:  # noqa: BLE001
            print(f"export_broad: {fn.__name__} failed: {e}", file=sys.stderr)
    return out


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("per-model timeout")


@contextlib.contextmanager
def guarded(rec, device, timeout):
    """Runs one model's work under a per-model timeout: an error is recorded in rec (one model
    failing must not stop the others), the time taken too, and the device's memory freed."""
    t0 = time.perf_counter()
    signal.alarm(timeout)
    try:
        yield t0
    except BaseException as ex:  # noqa: BLE001
        if isinstance(ex, KeyboardInterrupt):
            raise
        rec["error"] = f"{type(ex).__name__}: {ex}"[:1500]
        rec["traceback"] = traceback.format_exc()[-2500:]
    finally:
        signal.alarm(0)
        rec["seconds"] = round(time.perf_counter() - t0, 2)
        gc.collect()
        if device == "cuda":
            torch.cuda.empty_cache()


def export_one(e, dtype_name, device, out_dir, tmp_dir, timeout):
    name = f"{e.family}__{e.model}_{dtype_name}"
    rec = {"name": name, "file": name + ".pt2", "family": e.family, "model": e.model, "dtype": dtype_name,
           "device": device}
    with guarded(rec, device, timeout) as t0:
        torch.manual_seed(0)
        with torch.device(device):
            model = e.build()
        model = model.to(device=device, dtype=DTYPES[dtype_name]).eval()
        rec["parameters"] = sum(p.numel() for p in model.parameters())
        if rec["parameters"] > MAX_PARAMS:
            raise RuntimeError(f"skipped: {rec['parameters'] / 1e6:.0f}M parameters")
        args, kwargs = e.inputs(device, DTYPES[dtype_name])
        rec["inputs"] = {k: (list(v.shape), str(v.dtype)) if isinstance(v, torch.Tensor) else repr(v)[:80]
                         for k, v in list(enumerate(args)) + list(kwargs.items())}
        rec["inputs"] = {str(k): v for k, v in rec["inputs"].items()}
        with torch.no_grad():
            ep = torch.export.export(model, args, kwargs, strict=False)
        rec["export_seconds"] = round(time.perf_counter() - t0, 2)
        full = os.path.join(tmp_dir, rec["file"])
        torch.export.save(ep, full)
        rec["nodes"] = sum(1 for n in ep.graph.nodes if n.op == "call_function")
        strip_weights(full, os.path.join(out_dir, rec["file"]))
        os.remove(full)
        rec["bytes"] = os.path.getsize(os.path.join(out_dir, rec["file"]))
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/broad")
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else "/tmp")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtypes", default="fp32,bf16")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--deadline-s", type=float, default=1e9)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--set", choices=("broad", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6"), default="broad")
    a = ap.parse_args()
    t_start = time.time()
    entries = all_entries(a.set)
    if a.only:
        want = set(a.only.split(","))
        entries = [e for e in entries if e.model in want or e.family in want]
    # Round-robin over families (every family once, then second members, ...), so that a
    # deadline cuts variants rather than families; the two dtypes of a model stay together.
    rank, seen = [], {}
    for e in entries:
        seen[e.family] = seen.get(e.family, -1) + 1
        rank.append(seen[e.family])
    order = sorted(range(len(entries)), key=lambda k: (rank[k], k))
    todo = [(entries[k], d) for k in order for d in a.dtypes.split(",")]
    if a.list:
        for e, d in todo:
            print(f"{e.family}__{e.model}_{d}")
        print(f"{len(todo)} entries, {len({e.family for e in entries})} families", file=sys.stderr)
        return
    i, n = (int(x) for x in a.shard.split("/"))
    todo = todo[i::n]
    os.makedirs(a.out, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    man = os.path.join(a.out, f"manifest-{i}.jsonl")
    with open(man, "a") as f:
        for e, d in todo:
            if time.time() - t_start > a.deadline_s:
                f.write(json.dumps({"name": f"{e.family}__{e.model}_{d}", "family": e.family, "model": e.model,
                                    "dtype": d, "error": "not attempted: export deadline"}) + "\n")
                continue
            rec = export_one(e, d, a.device, a.out, a.tmp, a.timeout)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"[{i}] {rec['name']}: {rec.get('error', '').splitlines()[0][:150] if 'error' in rec else 'ok'} "
                  f"({rec['seconds']} s)", flush=True)


if __name__ == "__main__":
    main()
