judged-en	giving individual tokens of a math solution different advantages without a learned value model, when the only feedback is whether the final answer is right
judged-en	estimating the value of partial reasoning by sampling several continuations from each intermediate point instead of fitting a critic network
judged-en	scoring each step of a math solution with a learned model whose training labels come from how often sampled continuations of that step end correctly, with no people labelling steps
judged-en	a critic that is given hidden ground-truth information during training to judge every turn of a collaborative or search agent
judged-en	rewarding a web-searching agent at each round by how much the new evidence increases its confidence in the correct answer
judged-en	splitting one shared team reward among several cooperating language-model agents so each learns its own contribution
judged-en	turning the log-likelihood ratio between a fine-tuned policy and its reference model into a dense per-step signal
judged-en	spreading a reward that arrives only at the end of an episode back over the earlier actions responsible for it, in classic deep RL
judged-en	review articles mapping how LLMs are post-trained with rewards, both for reasoning and for acting as agents
judged-en	deciding where to fork extra rollouts during agent training, picking uncertain decision points rather than tool-call boundaries
judged-zh	多轮智能体强化学习中，用大模型评审为每一轮交互打分，作为过程奖励
judged-zh	不训练价值网络，把遇到相同环境状态的步骤放在一起比较，为LLM智能体的每一步估计优势
judged-zh	利用策略的熵或不确定性来调节多轮智能体训练中的优势大小和探索
judged-zh	分层的语言模型智能体强化学习：高层按轮次学习价值，低层按词元更新策略
judged-zh	用合作博弈中的沙普利值或核心解来分配推理片段、上下文来源或多个智能体的贡献
judged-zh	编程或命令行智能体的强化学习，借助代码执行反馈细化每一步动作的信用
judged-zh	基于偏好对直接优化语言模型，以及这种方法隐含着词元级Q函数的理论解释
judged-zh	大模型对齐中的近端策略优化、广义优势估计和人类反馈强化学习的基础工作
judged-zh	长程智能体离策略训练不稳定的问题：按轮次做重要性采样和裁剪
judged-zh	让智能体从自己已完成的轨迹中总结经验或技能，再把它转化为稠密的词元级训练信号
judged-mixed	用 LLM 当 centralized critic 给 MARL 里的每个 agent 做 credit assignment
judged-mixed	deep research 场景下多个 agent 协同，怎么用 RL 端到端训练
judged-mixed	process reward 按步累加容易被 reward hacking，有没有更稳的 step reward 聚合方式
judged-mixed	agentic RL 的训练框架：把 agent 的执行逻辑和 RL trainer 解耦，现有 agent 不改代码就能训
off	protein folding with diffusion models
off	predicting stock prices from financial news sentiment
off	image segmentation of brain MRI scans
off	speech recognition for low-resource languages
off	graph neural networks for molecule property prediction
off	forecasting wildfire spread from satellite images
off	learned cost models for database query optimization
off	neural image compression codecs
off	music genre classification from audio
off	detecting traffic signs for autonomous driving
off	recommender systems for e-commerce click-through prediction
off	knowledge distillation for compressing BERT
off	蛋白质结构预测
off	股票价格预测
off	医学图像分割
off	低资源语言的语音识别
off	分子性质预测的图神经网络
off	卫星图像中的森林火灾预测
off	数据库查询优化
off	神经图像压缩
off	音乐流派分类
off	电商推荐系统的点击率预估
off	用 diffusion model 做蛋白质折叠
off	基于 transformer 的股票预测
off	MRI 图像分割方法
off	graph neural network 预测分子性质
off	speech recognition 低资源语言
off	电商 recommender system 点击率
off	estimating crop yields from weather and soil data
off	detecting credit card fraud in transaction streams
off	predicting earthquake aftershocks from seismograph records
off	identifying bird species from recordings of their songs
off	sentiment analysis of product reviews
off	handwritten digit recognition with convolutional networks
off	spam filtering for email
off	estimating a person's age from a face photo
off	low-latency video compression for video conferencing
off	correcting systematic errors of numerical weather forecasts
off	农作物产量预测
off	信用卡欺诈检测
off	地震余震预测
off	鸟类鸣声识别
off	手写数字识别
off	垃圾邮件过滤
off	人脸年龄估计
off	商品评论情感分析
off	视频会议的低延迟视频压缩
off	数值天气预报的误差订正
off	用 CNN 做手写数字识别
off	credit card 交易的欺诈检测方法
off	基于 LSTM 的农作物产量预测
off	email spam 过滤
off	bird song 鸟类识别
off	face photo 人脸年龄估计
off	seismic 数据的地震余震预测
off	product review 情感分析
off	video conferencing 的低延迟压缩
off	weather forecast 数值模式订正
